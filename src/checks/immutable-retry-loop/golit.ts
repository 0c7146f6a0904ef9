// The API server prints rejected values as Go literals (`v1.LabelSelector{MatchLabels:map[string]string{"app":"web"},
// MatchExpressions:[]v1.LabelSelectorRequirement(nil)}`) or JSON (`["169.254.20.10"]`). People read YAML:
// parse the literal and print it as one line of flow YAML (`{matchLabels: {app: web}}`), dropping nil and
// empty fields. Anything unparsable is shown as given. Never throws.

type Val = string | number | boolean | null | Val[] | { [k: string]: Val } | { elided: true };

const MAX_TEXT = 400;

class Parser {
  i = 0;
  constructor(readonly s: string) {}
  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
  peek(): string {
    this.ws();
    return this.s[this.i] ?? '';
  }
  eat(c: string): boolean {
    if (this.peek() === c) {
      this.i++;
      return true;
    }
    return false;
  }
  str(): string {
    // a Go or JSON double-quoted string
    let out = '';
    this.i++;
    while (this.i < this.s.length) {
      const c = this.s[this.i++]!;
      if (c === '\\') {
        const n = this.s[this.i++] ?? '';
        out += n === 'n' ? '\n' : n === 't' ? '\t' : n;
      } else if (c === '"') return out;
      else out += c;
    }
    throw new Error('unterminated string');
  }
  /** A type prefix such as `v1.LabelSelector`, `map[string]string`, `[]v1.X`, `*int64`, `(*int64)`. */
  typeName(): string {
    const m = /^(?:\(\*?[\w.[\]]+\)|\*?(?:map\[[\w.*]+\]|\[\])*\*?[A-Za-z_][\w.]*)/.exec(this.s.slice(this.i));
    if (!m) return '';
    this.i += m[0].length;
    return m[0];
  }
  value(depth = 0): Val {
    if (depth > 60) throw new Error('too deep');
    const c = this.peek();
    if (c === '"') return this.str();
    if (c === '&') {
      this.i++;
      return this.value(depth + 1);
    }
    if (c === 's' && this.s[this.i + 1] === '"') {
      this.i++;
      return this.str();
    }
    if (this.s.startsWith('<nil>', this.i)) {
      this.i += 5;
      return null;
    }
    if (this.s.startsWith('...', this.i)) {
      this.i += 3;
      return { elided: true };
    }
    if (c === '{') return this.composite(depth);
    if (c === '[') {
      // JSON array, or a Go slice type before its braces
      if (this.s[this.i + 1] === ']') {
        const t = this.typeName();
        return this.afterType(t, depth);
      }
      this.i++;
      const arr: Val[] = [];
      while (this.peek() !== ']' && this.i < this.s.length) {
        arr.push(this.value(depth + 1));
        if (!this.eat(',')) break;
      }
      this.eat(']');
      return arr;
    }
    const num = /^-?\d+(?:\.\d+)?/.exec(this.s.slice(this.i));
    if (num) {
      this.i += num[0].length;
      return Number(num[0]);
    }
    const t = this.typeName();
    if (!t) throw new Error(`unexpected ${c}`);
    if (t === 'nil') return null;
    if (t === 'true' || t === 'false') return t === 'true';
    return this.afterType(t, depth);
  }
  afterType(t: string, depth: number): Val {
    const c = this.peek();
    if (c === '{') return this.composite(depth);
    if (c === '(') {
      // a conversion (`[]string(nil)`) or a call (`time.Date(1, time.January, ...)`)
      this.i++;
      const args: Val[] = [];
      while (this.peek() !== ')' && this.i < this.s.length) {
        args.push(this.value(depth + 1));
        if (!this.eat(',')) break;
      }
      this.eat(')');
      if (args.length === 1 && args[0] === null) return null;
      return t.startsWith('time.') ? null : args.length === 1 ? args[0]! : args;
    }
    return t; // an identifier: an enum value (time.UTC, "BinarySI") — keep its name
  }
  composite(depth: number): Val {
    this.eat('{');
    const obj: Record<string, Val> = {};
    const arr: Val[] = [];
    let keyed = false;
    while (this.peek() !== '}' && this.i < this.s.length) {
      const save = this.i;
      // `Key:` (Go field), `"key":` (map or JSON)
      let key: string | undefined;
      if (this.peek() === '"') {
        const k = this.str();
        if (this.eat(':')) key = k;
        else {
          this.i = save;
        }
      } else {
        const m = /^([A-Za-z_]\w*)\s*:/.exec(this.s.slice(this.i));
        if (m) {
          key = m[1]!;
          this.i += m[0].length;
        }
      }
      const v = this.value(depth + 1);
      if (key !== undefined) {
        keyed = true;
        obj[key.charAt(0).toLowerCase() + key.slice(1)] = v;
      } else arr.push(v);
      if (!this.eat(',')) break;
    }
    this.eat('}');
    return keyed ? obj : arr;
  }
}

const isElided = (v: Val): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { elided?: boolean }).elided === true;

function prune(v: Val): Val | undefined {
  if (v === null || v === '' || v === 0 || v === false) return undefined; // Go prints zero values; they say nothing
  if (Array.isArray(v)) {
    const a = v.map(prune).filter((x): x is Val => x !== undefined);
    return a.length ? a : undefined;
  }
  if (typeof v === 'object' && !isElided(v)) {
    const o: Record<string, Val> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x as Val);
      if (p !== undefined) o[k] = p;
    }
    return Object.keys(o).length ? o : undefined;
  }
  return v;
}

const PLAIN = /^[A-Za-z0-9_./@%-][A-Za-z0-9_./@%:+ -]*$/;
function flow(v: Val): string {
  if (v === null) return 'null';
  if (isElided(v)) return '…';
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${flow(x as Val)}`)
      .join(', ')}}`;
  if (typeof v === 'string')
    return v !== '' && PLAIN.test(v) && !/^(true|false|null|~|-?\d[\d.]*)$/.test(v) && !/: |\s$/.test(v) ? v : JSON.stringify(v);
  return String(v);
}

const cut = (s: string): string => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s);

/** A Go or JSON literal as one line of YAML; a single string as itself; nil/empty as "(unset)". */
export function goLiteralText(raw: string): string {
  const s = raw.trim();
  try {
    const p = new Parser(s);
    const v = p.value();
    p.ws();
    if (p.i < s.length) return cut(s); // not one literal: show as given
    if (v === '' || v === null) return '(unset)';
    const pruned = prune(v);
    if (pruned === undefined) return '(unset)';
    // a list of one string (["169.254.20.10"], []string{"a"}) is that string
    if (Array.isArray(pruned) && pruned.length === 1 && typeof pruned[0] === 'string') return pruned[0];
    return cut(typeof pruned === 'string' ? pruned : flow(pruned));
  } catch {
    return cut(s);
  }
}
