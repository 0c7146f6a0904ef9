// Where each prediction sits on the map of the cluster as it would be, for `what-if -o html`: a prediction made by a
// check is drawn on the part that shows that finding (same check, code and objects); what-if's own predictions are
// drawn on a part of their contract that names one of their objects. The rest (workloads, mostly) no part draws:
// the page lists them, never drops them.
import { partKey } from '../map/blast.js';
import { faultKey, type ArchMap, type CheckResult, type ObjectRef } from '../model.js';
import type { Prediction } from './predict.js';

const ref = (o: ObjectRef): string => `${o.kind}/${o.namespace ?? ''}/${o.name}`;

export interface DrawnPredictions {
  /** By part key (src/map/blast.ts): the predictions drawn on that part. */
  parts: Record<string, Prediction[]>;
  /** What no part of the map draws. */
  undrawn: Prediction[];
}

export function drawPredictions(map: ArchMap, results: CheckResult[], predictions: Prediction[]): DrawnPredictions {
  // the checks' predictions by the finding they are (check, code, objects), once
  const byFinding = new Map<string, Prediction[]>();
  for (const p of predictions)
    if (p.from !== 'what-if') {
      const k = `${p.from}|${faultKey(p)}`;
      byFinding.set(k, [...(byFinding.get(k) ?? []), p]);
    }
  const own = predictions.filter((p) => p.from === 'what-if');
  const parts: Record<string, Prediction[]> = {};
  const drawn = new Set<Prediction>();
  const put = (key: string, p: Prediction): void => {
    if ((parts[key] ??= []).includes(p)) return;
    parts[key].push(p);
    drawn.add(p);
  };
  map.sections.forEach((sec, si) =>
    sec.lines.forEach((line, li) => {
      const key = partKey(si, li);
      for (const c of line.checks) {
        const r = results.find((x) => x.id === c.id);
        for (const i of c.indexes ?? []) {
          const f = r?.findings[i];
          for (const p of f ? (byFinding.get(`${c.id}|${faultKey(f)}`) ?? []) : []) put(key, p);
        }
      }
      const mine = new Set((line.objects ?? []).map(ref));
      if (!mine.size) return;
      for (const p of own) if (p.contract === sec.contract && p.objects.some((o) => mine.has(ref(o)))) put(key, p);
    }),
  );
  return { parts, undrawn: predictions.filter((p) => !drawn.has(p)) };
}
