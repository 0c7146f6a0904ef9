// `kubectl arch completion bash|zsh|fish`: a completion script for the kubectl-arch command itself.
// Typed as `kubectl arch …`, kubectl (1.26+) completes through the kubectl_complete-arch helper
// instead; both ask `kubectl-arch __complete` (src/complete.ts).
import { InputError } from '../errors.js';
import { SHELLS } from '../complete.js';

const HEADER = (shell: string, how: string) => `# kubectl-arch ${shell} completion for the kubectl-arch command (${how}).
# For \`kubectl arch <TAB>\`, kubectl 1.26+ runs kubectl_complete-arch (shipped next to kubectl-arch): put it on PATH.
`;

const SCRIPTS: Record<string, string> = {
  bash: `${HEADER('bash', 'source <(kubectl-arch completion bash)')}_kubectl_arch() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out directive line IFS=$'\\n'
  out=$(kubectl-arch __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  directive=\${out##*:}
  out=\${out%:*}
  COMPREPLY=()
  for line in $out; do COMPREPLY+=("\${line%%$'\\t'*}"); done
  if [ $((directive & 4)) -eq 0 ] && [ \${#COMPREPLY[@]} -eq 0 ]; then COMPREPLY=($(compgen -f -- "$cur")); fi
  return 0
}
complete -F _kubectl_arch kubectl-arch
`,
  zsh: `#compdef kubectl-arch
${HEADER('zsh', 'source <(kubectl-arch completion zsh)')}_kubectl_arch() {
  local out directive l
  local -a lines comps
  out=$(kubectl-arch __complete "\${(@)words[2,$CURRENT]}" 2>/dev/null) || return 1
  lines=("\${(@f)out}")
  directive=\${lines[-1]#:}
  for l in "\${(@)lines[1,-2]}"; do
    if [[ $l == *$'\\t'* ]]; then comps+=("\${\${l%%$'\\t'*}//:/\\\\:}:\${l#*$'\\t'}"); else comps+=("\${l//:/\\\\:}"); fi
  done
  if (( \${#comps} )); then _describe 'kubectl-arch' comps; elif (( (directive & 4) == 0 )); then _files; fi
}
compdef _kubectl_arch kubectl-arch
`,
  fish: `${HEADER('fish', 'kubectl-arch completion fish | source')}function __kubectl_arch_complete
    set -l args (commandline -opc)[2..-1] (commandline -ct)
    kubectl-arch __complete $args 2>/dev/null | string match -v -r '^:'
end
complete -c kubectl-arch -f -a '(__kubectl_arch_complete)'
`,
};

/** The script for a shell this knows; src/fast-paths.ts prints it before yargs loads (shells run this at every start). */
export const completionScript = (shell: string | undefined): string | undefined =>
  shell && Object.hasOwn(SCRIPTS, shell) ? SCRIPTS[shell] : undefined;

export async function completion(a: { shell?: string }): Promise<number> {
  const script = completionScript(a.shell);
  if (!script) throw new InputError(`unknown shell "${a.shell ?? ''}"`, `one of: ${SHELLS.join(', ')}`);
  process.stdout.write(script);
  return 0;
}
