// The SARIF Multitool (Microsoft's sarif-sdk, from npm: a self-contained .NET build, no .NET install needed) as an
// independent validator: the approved SARIF 2.1.0 schema and GitHub code scanning's own rules (--rule-kind Gh).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

const require = createRequire(import.meta.url);

/** The problems the Multitool finds in a SARIF document (its error-level results, as "ID: message"). */
export function multitoolErrors(sarif: string): string[] {
  const dir = tempDir('ka-sarif-');
  const input = join(dir, 'in.sarif');
  const out = join(dir, 'out.sarif');
  writeFileSync(input, sarif);
  const exe = require('@microsoft/sarif-multitool-linux') as string;
  const r = spawnSync(exe, ['validate', input, '--rule-kind', 'Gh;Sarif', '--output', out, '--log', 'ForceOverwrite'], {
    encoding: 'utf8',
    env: { ...process.env, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: '1', DOTNET_CLI_TELEMETRY_OPTOUT: '1' },
  });
  if (r.status !== 0 && r.status !== 1) throw new Error(`sarif multitool exited ${r.status}: ${r.stderr}${r.stdout}`);
  const log = JSON.parse(readFileSync(out, 'utf8'));
  const rules: Array<{ id: string; messageStrings?: Record<string, { text: string }> }> = log.runs[0].tool.driver.rules ?? [];
  return (log.runs[0].results ?? [])
    .filter((x: { level?: string }) => x.level === 'error')
    .map((x: { ruleId: string; message: { id?: string; text?: string; arguments?: string[] } }) => {
      const tmpl = rules.find((rr) => rr.id === x.ruleId)?.messageStrings?.[x.message.id ?? '']?.text ?? x.message.text ?? '';
      return `${x.ruleId}: ${tmpl.replace(/\{(\d+)\}/g, (_, i: string) => x.message.arguments?.[Number(i)] ?? '')}`;
    });
}
