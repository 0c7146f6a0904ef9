// Every command kubectl-arch prints is an argument list rendered by one quoting function (src/lib/shell.ts). This
// test reads every file of src/ with the TypeScript parser and fails where a command is built another way: a value
// pasted into a command inside a template string (`kubectl delete role ${name}`), a command glued with + , or an
// argument list joined with spaces. Prose may name a value next to a command, outside the command's own clause
// (`look for ${owners} in the cluster that runs Argo CD: argocd app list`).
import { expect, test } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './helpers/run.js';

const SRC = join(ROOT, 'src');
const HOLE = '\u0000';

/** Where a command starts: a program a fix tells a human to run, followed by its first argument (or a value glued to it). */
const START =
  /(?<![\w./@-])(?:kubectl|helm|argocd|flux|systemctl|journalctl|etcdctl|etcdutl|crictl|talosctl|k0s|oc|openssl|base64|(?:k3s|rke2) (?:server|agent|etcd-snapshot|kubectl|crictl|ctr|certificate|token))(?:\s+(?=[-\w\u0000])|(?=\u0000))/g;
/** Where the command's clause ends: prose after it (a parenthesis, a semicolon, a comma, a dash, a colon), or the
 *  backtick that closes a command named in prose (`kubectl drain` refuses …). */
const END = /[();\n`]|, | — | -- |: |\. /;

/** The holes (interpolated values) inside a command's clause in one string: each a finding. */
export function pastedValues(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(START)) {
    const rest = text.slice(m.index! + m[0].length);
    const end = END.exec(rest);
    const clause = m[0] + (end ? rest.slice(0, end.index) : rest);
    if (clause.includes(HOLE)) out.push(clause.replace(/\u0000/g, '${…}'));
  }
  return out;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === 'cases' ? [] : files(p);
    return p.endsWith('.ts') && !p.endsWith('/scenario.ts') ? [p] : [];
  });
}

const COMMAND_WORD = /^(kubectl|helm|argocd|flux|systemctl|journalctl|etcdctl|crictl|talosctl|k0s|oc)$/;

function wrongIn(file: string): string[] {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const at = (n: ts.Node): string => `${relative(ROOT, file)}:${src.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  const literal = (n: ts.Node): string | undefined => (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) ? n.text : undefined);
  const visit = (n: ts.Node): void => {
    if (ts.isTemplateExpression(n)) {
      const text = n.head.text + n.templateSpans.map((s) => HOLE + s.literal.text).join('');
      for (const c of pastedValues(text)) out.push(`${at(n)}: ${c}`);
    } else if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      for (const side of [n.left, n.right]) {
        const t = literal(side);
        if (t !== undefined && pastedValues(t + HOLE).length + pastedValues(HOLE + t).length > 0) out.push(`${at(n)}: + ${t}`);
      }
    } else if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      n.expression.name.text === 'join' &&
      ts.isArrayLiteralExpression(n.expression.expression) &&
      n.expression.expression.elements.some((e) => COMMAND_WORD.test(literal(e) ?? ''))
    ) {
      out.push(`${at(n)}: an argument list joined by hand`);
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

test('the rule finds a value pasted into a command, and lets prose around a command name values', () => {
  expect(pastedValues(`kubectl delete role ${HOLE} -n ${HOLE}`)).toHaveLength(1);
  // a value glued to the program's name (`kubectl${ns ? ` -n ${ns}` : ''} patch …`)
  expect(pastedValues(`kubectl${HOLE} patch ${HOLE} --type json`)).toHaveLength(1);
  expect(pastedValues(`read the reason: kubectl -n ${HOLE} logs job/${HOLE}`)).toHaveLength(1);
  expect(pastedValues(`fix or roll back (helm -n ${HOLE} rollback ${HOLE}), or not`)).toHaveLength(1);
  expect(pastedValues(`look for ${HOLE} in the cluster that runs Argo CD: argocd app list (or kubectl get applications -A)`)).toEqual([]);
  expect(pastedValues(`in /etc/rancher/k3s/config.yaml set cluster-dns: ${HOLE}`)).toEqual([]);
  expect(pastedValues(`kubectl arch orphans --cleanup-plan   # prints the kubectl delete commands`)).toEqual([]);
});

/** Text the rule reads as a command that is none: the retry-loop check's names for where it saw a rejection. */
const NOT_COMMANDS = new Set([
  'src/checks/immutable-retry-loop/loops.ts: argocd condition ${…}',
  'src/checks/immutable-retry-loop/loops.ts: flux ${…} condition',
]);

test('no file in src/ builds a command but through lib/shell.ts (an argument list, quoted by one function)', () => {
  const wrong = files(SRC)
    .filter((f) => !f.endsWith('/lib/shell.ts'))
    .flatMap(wrongIn);
  expect(wrong.filter((w) => !NOT_COMMANDS.has(w.replace(/:\d+:/, ':')))).toEqual([]);
});
