// A cluster whose names attack a page: each payload sets globalThis.__pwned if it ever runs, and ends or opens
// what it lands in (an element, an attribute, a <script> block, an HTML comment, inline SVG, a JSON string).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scenarios as webhookScenarios } from '../../src/checks/admission-webhooks/scenario.js';
import { build, files } from '../../scenarios/index.js';

export const PAYLOADS = {
  img: `<img src=x onerror="globalThis.__pwned='img'">`,
  script: `</script><script>globalThis.__pwned='script'</script>`,
  svg: `<svg onload="globalThis.__pwned='svg'"><text>x</text></svg>`,
  comment: `<!--<script>globalThis.__pwned='comment'</script>-->`,
  attr: `" autofocus onfocus="globalThis.__pwned='attr'" x="`,
  separators: `line\u2028sep\u2029end`,
  bidi: `gpj.\u202eexe`,
} as const;

/** The failing-webhook scenario with its names replaced by payloads; its findings and blast radius carry them. */
export function hostileCluster(): ReturnType<typeof build> {
  const built = build(webhookScenarios);
  for (const o of built.objects) {
    if (o.kind === 'ValidatingWebhookConfiguration') {
      o.metadata.name = `${PAYLOADS.img}${PAYLOADS.attr}`;
      o.webhooks[0].name = `${PAYLOADS.script}${PAYLOADS.separators}`;
      // the Service it calls: not found, by a name that is itself a payload
      o.webhooks[0].clientConfig.service.name = `${PAYLOADS.comment}${PAYLOADS.svg}`;
    }
    if (o.kind === 'MutatingWebhookConfiguration')
      o.metadata.name = `</title></svg><svg><script>globalThis.__pwned='title'</script>${PAYLOADS.bidi}`;
  }
  return built;
}

/** The hostile cluster as a snapshot directory (what `--snapshot DIR` reads). */
export function writeHostileSnapshot(dir: string): string {
  for (const [f, text] of files(hostileCluster())) writeFileSync(join(dir, f), text);
  return dir;
}

/** A node name that is a payload (a snapshot may hold any name; the API server would refuse it, a file does not). */
export const HOSTILE_NODE = `ilwon${PAYLOADS.img}${PAYLOADS.attr}`;

/** The hostile cluster with node ilwon renamed to HOSTILE_NODE everywhere it is named (pods, leases, members). */
export function writeHostileNodeSnapshot(dir: string): string {
  const quoted = JSON.stringify(HOSTILE_NODE).slice(1, -1);
  for (const [f, text] of files(hostileCluster()))
    writeFileSync(join(dir, f), f.endsWith('.json') ? text.replace(/(?<![a-z0-9-])ilwon(?![a-z0-9-])/g, quoted) : text);
  return dir;
}
