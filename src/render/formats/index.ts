// The machine formats, by name (`-o sarif|junit|prometheus|policyreport|openreports`).
import type { FormatOptions, FormatRun, MachineFormat } from './model.js';

export async function renderFormat(format: MachineFormat, runs: FormatRun[], opts: FormatOptions): Promise<string> {
  switch (format) {
    case 'sarif':
      return (await import('./sarif.js')).renderSarif(runs, opts);
    case 'junit':
      return (await import('./junit.js')).renderJunit(runs, opts);
    case 'prometheus':
      return (await import('./prometheus.js')).renderPrometheus(runs, opts);
    case 'policyreport':
      return (await import('./policyreport.js')).renderPolicyReports(runs, opts);
    case 'openreports':
      return (await import('./policyreport.js')).renderPolicyReports(runs, opts, 'openreports');
  }
}
