// The one credential redactor. A snapshot keeps only the fields the checks declare (fields.ts), but some of what they
// read is free text a credential can stand in — an Event's message (an API error quotes the whole pod template it
// refused), a condition, a K3s server's arguments, a URL. Every kept string passes here at the door, so every format,
// page and MCP answer inherits it. Credentials are found by their shape, wherever they stand:
// - private keys (PEM blocks), JSON Web Tokens, K3s join tokens (K10…::server:…);
// - Authorization values: Bearer and Basic;
// - URL user-info (https://user:pass@host, postgres://u:p@h) and query parameters with secret-like names (?token=…);
//   MySQL DSNs (user:pass@tcp(host));
// - `key=value`, `key: value` and `"key": "value"` where the key says it holds a secret (password, token, secret,
//   api/access/private key, credential…), and CLI flags with such names (`--password x`, `--db-pass=x`, `-pX` after
//   mysql, `-u user:pass` after curl);
// - Go struct dumps in API errors: every env Value and every Args/Command string (`Env:[]core.EnvVar{{Name:"DB",
//   Value:"…"}}`, `Args:[]string{"--password=…"}`), and their JSON forms ("value", "args", "command").
// Masked values become ********; the text around them stays, so a message still says what failed.

export const MASK = '********';

/** A word that makes a key, flag or parameter name a credential's. */
const SECRET =
  '(?:password|passwd|passphrase|pwd|secret|token|credentials?|api[-_]?key|access[-_]?key|secret[-_]?key|private[-_]?key|client[-_]?secret|auth[-_]?key|join[-_]?key|account[-_]?key|storage[-_]?key|shared[-_]?key|signing[-_]?key|encryption[-_]?key|master[-_]?key|ssh[-_]?key|db[-_]?pass|pass(?=\\b|[-_]))';
const NAME = `[\\w.-]*${SECRET}[\\w.-]*`;
/** A whole word that holds a secret's word, matched without backtracking into it (the lookahead-and-backreference
 *  form of an atomic group): `[\w.-]*secret[\w.-]*` followed by anything else takes time quadratic in a long word
 *  ("passwordpassword…" of 8 MB did not finish), this takes linear time. Its text is the group named `g`. */
const NAME_WORD = (g: string): string => `(?=[\\w.-]*${SECRET})(?=(?<${g}>[\\w.-]+))\\k<${g}>`;

const PEM = /-----BEGIN ([A-Z0-9 ]*(?:PRIVATE KEY|ENCRYPTED[A-Z0-9 ]*))-----[\s\S]*?(?:-----END \1-----|$)/g;
const JWT = /\beyJ[\w-]{4,}\.eyJ[\w-]{4,}\.[\w-]*/g;
const K3S_TOKEN = /\bK10[0-9a-f]{16,}::[^:\s"',;]+:[^\s"',;]+/g;
const AUTHORIZATION = /\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{8,}/g;
const SCHEME = /\b[a-z][a-z0-9+.-]*:\/\//gi;
const URL_STOP = /[\s"'<>]/g;
const QUERY = new RegExp(`([?&;]${NAME_WORD('q')}=)[^&#\\s"'<>]+`, 'gi');
// a user name starts a word (no match is tried inside one: linear time on a long word)
const DSN = /((?<![\w.-])(?=(?<u>[\w.-]+))\k<u>:)[^@\s/:"']+(@(?:tcp|unix|udp)\()/g;
const GO_VALUE = /(\bValue:\s*)"(?:[^"\\]|\\.)*"/g;
const GO_STRINGS = /\b(?:Args|Command):\s*\[\]string\{/g;
// any case: the API server of v1.3x dumps a Go struct as JSON with its Go names ("Value", "Args")
const JSON_VALUE = /("value"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;
const JSON_STRINGS = /"(?:args|command)"\s*:\s*\[/gi;
/** A string in a list, or its start when the text ends inside it. */
const LIST_STRING = /"(?:[^"\\]|\\.)*(?:"|$)/g;
/** `key=value`, `key: value`, `"key": "value"`, `key='value'` with a secret's key; the value quoted or up to a
 *  separator. A value that is a reference (a Secret's name: `passwordSecretRef: x`) is a name, not masked: the key
 *  ending in Ref, Name, File or Path says so. */
const ASSIGNMENT = new RegExp(
  `((?:^|[\\s,;{(\\[&?"'])-{0,2}(${NAME_WORD('a')})["']?\\s*(?:=|:(?!//))\\s*)("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[^\\s,;&"'}\\])]+)`,
  'gi',
);
const REFERENCE = /(Ref|Refs|Name|Names|File|Path|Dir|Kind|Type|Hash)$|[-_](ref|name|file|path|dir|kind|type)$/;
const FLAG_VALUE = new RegExp(`((?:^|\\s)--?${NAME_WORD('f')})(\\s+)(?!-)([^\\s"',;]+)`, 'gi');
const MYSQL_P = /(\bmysql(?:dump|admin)?\b[^;|&\n]*?\s-p)(?!\s)([^\s;|&"']+)/g;
const CURL_USER = /((?:^|\s)(?:-u|--user)\s+[^\s:]+:)([^\s;|&"']+)/g;

/** Every quoted string of the lists `open` starts, up to their `close` outside a string (or the end of the text:
 *  a list cut short is masked to the end). One pass: a list's scan never starts again inside another's, so a text
 *  of many unclosed lists takes linear time (a regular expression per list took quadratic). */
function maskLists(s: string, open: RegExp, close: string): string {
  let out = '';
  let last = 0;
  open.lastIndex = 0;
  for (let m = open.exec(s); m; m = open.exec(s)) {
    const start = m.index + m[0].length;
    let i = start;
    let inString = false;
    for (; i < s.length; i++) {
      const c = s[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === close) break;
    }
    out += s.slice(last, start) + s.slice(start, Math.min(i, s.length)).replace(LIST_STRING, `"${MASK}"`);
    last = Math.min(i, s.length);
    open.lastIndex = Math.max(last, open.lastIndex);
  }
  return out + s.slice(last);
}

/** `scheme://user:password@host` with what stands before the @ masked: the first @ after the scheme, before a space,
 *  quote or angle bracket. Where the next @ and the next stop are is remembered across schemes, so many schemes and
 *  no @ ("http://http://…") take linear time, not a scan to the end from each. */
function maskUserinfo(s: string): string {
  let out = '';
  let last = 0;
  let at = -1;
  let stop = -1;
  SCHEME.lastIndex = 0;
  for (let m = SCHEME.exec(s); m; m = SCHEME.exec(s)) {
    const from = m.index + m[0].length;
    if (at < from) {
      const i = s.indexOf('@', from);
      at = i < 0 ? Number.MAX_SAFE_INTEGER : i;
    }
    if (stop < from) {
      URL_STOP.lastIndex = from;
      stop = URL_STOP.exec(s)?.index ?? s.length;
    }
    if (at > from && at < stop) {
      out += `${s.slice(last, from)}${MASK}@`;
      last = at + 1;
      SCHEME.lastIndex = at + 1;
    }
  }
  return out + s.slice(last);
}

/** What every shape above needs: a space, `=`, `@`, a quote, `::` or a JWT's start; or else a `:` after a secret's
 *  word (`password:x`). Most kept strings are names, times and addresses with none of it: they are returned as they
 *  are without the fifteen passes (measured: the door allocated 14 KB per pod on them). */
const MAYBE = /[\s=@"]|eyJ|::/;
const SECRET_WORD = new RegExp(SECRET, 'i');

/** Free text with every credential in it masked. */
export function redactText(s: string): string {
  if (s.length < 6 || cannotHold(s)) return s;
  return redactShapes(s);
}

/** The shortcut of redactText: true when no shape can match (a test holds it to redactShapes on generated text). */
export const cannotHold = (s: string): boolean => !MAYBE.test(s) && (!s.includes(':') || !SECRET_WORD.test(s));

/** Every shape's pass, in order. */
export function redactShapes(s: string): string {
  let t = maskUserinfo(s)
    .replace(PEM, (_m, type: string) => `-----BEGIN ${type}-----${MASK}-----END ${type}-----`)
    .replace(JWT, MASK)
    .replace(K3S_TOKEN, MASK)
    .replace(AUTHORIZATION, `$1$2${MASK}`)
    .replace(QUERY, `$1${MASK}`)
    .replace(DSN, `$1${MASK}$3`)
    .replace(GO_VALUE, `$1"${MASK}"`)
    .replace(JSON_VALUE, `$1"${MASK}"`);
  t = maskLists(maskLists(t, GO_STRINGS, '}'), JSON_STRINGS, ']');
  return t
    .replace(ASSIGNMENT, (m, head: string, key: string, _word: string, value: string) => {
      if (REFERENCE.test(key) || value === MASK || value === `"${MASK}"`) return m;
      const q = value[0] === '"' || value[0] === "'" ? value[0] : '';
      return `${head}${q}${MASK}${q}`;
    })
    .replace(FLAG_VALUE, (m, flag: string, _word: string, sp: string, value: string) =>
      REFERENCE.test(flag) || value === MASK ? m : `${flag}${sp}${MASK}`,
    )
    .replace(MYSQL_P, `$1${MASK}`)
    .replace(CURL_USER, `$1${MASK}`);
}

const SECRET_KEY = new RegExp(`^${NAME}$`, 'i');
/** Whether a structured field's key says its value is a credential (a flexVolume option `password`, a
 *  `storageAccountKey`), and is no reference to one (`passwordSecretRef`, `tokenFile`). */
export const secretKey = (key: string): boolean => SECRET_KEY.test(key) && !REFERENCE.test(key);

/** A flag (or config key) whose value is a credential; `t` is K3s's short form of --token. */
const SECRET_FLAG = new RegExp(`^(?:${NAME}|t|datastore-endpoint)$`, 'i');

/** `name=value` with the value masked when the name says it is a credential (nested: `a=b=c`); any other text as free
 *  text. */
function maskAssignment(a: string): string {
  const eq = a.indexOf('=');
  if (eq <= 0) return redactText(a);
  const name = a.slice(0, eq).replace(/^-+/, '');
  if (SECRET_FLAG.test(name) && !REFERENCE.test(name)) return `${a.slice(0, eq)}=${MASK}`;
  return `${a.slice(0, eq + 1)}${maskAssignment(a.slice(eq + 1))}`;
}

/** An argument list (`["server","-t","abc","--kube-apiserver-arg=oidc-client-secret=x"]`) with credentials masked:
 *  the value after a secret flag, or after its `=`, nested ones too. */
export function redactArgs(args: readonly unknown[]): string[] {
  const out: string[] = [];
  let maskNext = false;
  for (const v of args.map(String)) {
    if (maskNext) {
      maskNext = false;
      if (!v.startsWith('-')) {
        out.push(MASK);
        continue;
      }
    }
    const flag = /^--?([\w.-]+)$/.exec(v);
    if (flag && SECRET_FLAG.test(flag[1]!) && !REFERENCE.test(flag[1]!)) {
      maskNext = true;
      out.push(v);
    } else out.push(maskAssignment(v));
  }
  return out;
}

/** The JSON text of an argument list with credentials masked; text that is not one is redacted as free text. */
export function redactArgsText(json: string): string {
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch {
    return redactText(json);
  }
  return Array.isArray(args) ? JSON.stringify(redactArgs(args)) : redactText(json);
}
