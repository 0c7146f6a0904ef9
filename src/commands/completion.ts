// `kubectl arch completion bash|zsh|fish`: a completion script for the kubectl-arch command itself.
// Typed as `kubectl arch …`, kubectl (1.26+) completes through the kubectl_complete-arch helper
// instead; both ask `kubectl-arch __complete` (src/complete.ts).
import { InputError } from '../errors.js';
import { SHELLS } from '../complete.js';

const HEADER = (shell: string, how: string) => `# kubectl-arch ${shell} completion for the kubectl-arch command (${how}).
# For \`kubectl arch <TAB>\`, kubectl 1.26+ runs kubectl_complete-arch (shipped next to kubectl-arch): put it on PATH.
`;

const SCRIPTS: Record<string, string> = {
  // every candidate is quoted for the command line (printf %q): bash inserts COMPREPLY as it is, and a context named
  // prod$(touch x) would run on Enter; lines are read one by one (no word splitting, no glob: a context named *);
  // file names go through compopt -o filenames, which quotes them too
  bash: `${HEADER('bash', 'source <(kubectl-arch completion bash)')}_kubectl_arch() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out directive line
  out=$(kubectl-arch __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  directive=\${out##*:}
  out=\${out%:*}
  COMPREPLY=()
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    printf -v line '%q' "\${line%%$'\\t'*}"
    COMPREPLY+=("$line")
  done <<<"$out"
  # 2: no space after the word (a directory, to go on into it)
  if [ $((directive & 2)) -ne 0 ]; then compopt -o nospace 2>/dev/null; fi
  if [ $((directive & 4)) -eq 0 ] && [ \${#COMPREPLY[@]} -eq 0 ]; then
    compopt -o filenames 2>/dev/null
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
  fi
  return 0
}
complete -F _kubectl_arch kubectl-arch
`,
  // zsh quotes what it inserts (compadd without -Q), so a candidate is text there; _describe takes value:description
  zsh: `#compdef kubectl-arch
${HEADER('zsh', 'source <(kubectl-arch completion zsh)')}_kubectl_arch() {
  local out directive l v
  local -a lines comps nospace
  out=$(kubectl-arch __complete "\${(@)words[2,$CURRENT]}" 2>/dev/null) || return 1
  lines=("\${(@f)out}")
  directive=\${lines[-1]#:}
  # 2: no space after the word (a directory, to go on into it)
  (( directive & 2 )) && nospace=(-S '')
  for l in "\${(@)lines[1,-2]}"; do
    # _describe reads value:description: a backslash and a colon in the value are escaped for it
    v=\${\${l%%$'\\t'*}//\\\\/\\\\\\\\}
    v=\${v//:/\\\\:}
    if [[ $l == *$'\\t'* ]]; then comps+=("$v:\${l#*$'\\t'}"); else comps+=("$v"); fi
  done
  if (( \${#comps} )); then _describe 'kubectl-arch' comps "\${nospace[@]}"; elif (( (directive & 4) == 0 )); then _files; fi
}
compdef _kubectl_arch kubectl-arch
`,
  fish: `${HEADER('fish', 'kubectl-arch completion fish | source')}function __kubectl_arch_complete
    set -l args (commandline -opc)[2..-1] (commandline -ct)
    set -l out (kubectl-arch __complete $args 2>/dev/null)
    set -q out[1]; or return
    # every line but the last, the directive (a candidate may begin with a colon too); fish escapes what it inserts
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    for l in $out
        printf '%s\\n' $l
    end
    # nothing offered where files may be (directive without 4): the files, as fish completes paths
    if not set -q out[1]; and string match -qr '^[0-9]+$' -- $directive; and test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path (commandline -ct)
    end
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
