// Label selectors as the API server applies them (apimachinery metav1.LabelSelectorAsSelector): matchLabels AND
// matchExpressions (In, NotIn, Exists, DoesNotExist); an empty selector {} selects everything, a missing one
// nothing. A malformed selector (a wrong type, an unknown operator) selects nothing and says so.

export type Labels = Record<string, string> | undefined;

/** Whether the selector selects these labels; 'malformed' when it cannot be read. */
export function selects(selector: unknown, labels: Labels): boolean | 'malformed' {
  if (selector === undefined || selector === null) return false;
  if (typeof selector !== 'object' || Array.isArray(selector)) return 'malformed';
  const s = selector as { matchLabels?: unknown; matchExpressions?: unknown };
  const have = labels && typeof labels === 'object' ? labels : {};
  if (s.matchLabels !== undefined && s.matchLabels !== null) {
    if (typeof s.matchLabels !== 'object' || Array.isArray(s.matchLabels)) return 'malformed';
    for (const [k, v] of Object.entries(s.matchLabels as Record<string, unknown>)) if (have[k] !== String(v)) return false;
  }
  if (s.matchExpressions !== undefined && s.matchExpressions !== null) {
    if (!Array.isArray(s.matchExpressions)) return 'malformed';
    for (const e of s.matchExpressions as Array<{ key?: unknown; operator?: unknown; values?: unknown }>) {
      if (!e || typeof e.key !== 'string') return 'malformed';
      const values = Array.isArray(e.values) ? e.values.map(String) : [];
      const present = Object.hasOwn(have, e.key);
      switch (e.operator) {
        case 'In':
          if (!present || !values.includes(have[e.key]!)) return false;
          break;
        case 'NotIn':
          if (present && values.includes(have[e.key]!)) return false;
          break;
        case 'Exists':
          if (!present) return false;
          break;
        case 'DoesNotExist':
          if (present) return false;
          break;
        default:
          return 'malformed';
      }
    }
  }
  return true;
}

/** A selector in words, as kubectl describe prints it ("app=web,tier in (a,b)", "<all>"). */
export function selectorText(selector: unknown): string {
  if (!selector || typeof selector !== 'object') return '<none>';
  const s = selector as { matchLabels?: Record<string, unknown>; matchExpressions?: Array<Record<string, unknown>> };
  const parts = [
    ...Object.entries(s.matchLabels && typeof s.matchLabels === 'object' ? s.matchLabels : {}).map(([k, v]) => `${k}=${String(v)}`),
    ...(Array.isArray(s.matchExpressions) ? s.matchExpressions : []).map((e) => {
      const vals = Array.isArray(e?.values) ? `(${e.values.map(String).join(',')})` : '';
      const op = String(e?.operator ?? '?');
      return op === 'Exists'
        ? String(e?.key)
        : op === 'DoesNotExist'
          ? `!${String(e?.key)}`
          : `${String(e?.key)} ${op.toLowerCase()} ${vals}`;
    }),
  ];
  return parts.length ? parts.join(',') : '<all>';
}
