// Recognise the API server's "this field can never change" rejections and pull them apart.
// Wordings (REFERENCE.md §1; proven against a live kube-apiserver by the e2e suite):
//   Service "kube-dns" is invalid: spec.clusterIPs[0]: Invalid value: ["169.254.20.10"]: may not change once set
//   Deployment.apps "web" is invalid: spec.selector: Invalid value: {...}: field is immutable
//   StatefulSet.apps "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than ... are forbidden
//   PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests ...

export const IMMUTABLE_RE = /field is immutable|may not change once set|updates to statefulset spec for fields other than|is immutable after creation/i;

export interface Rejection {
  kind?: string;
  name?: string;
  namespace?: string;
  field?: string;
  value?: string;
  detail: string;
}

export const isImmutableRejection = (msg: string | undefined): boolean => Boolean(msg && IMMUTABLE_RE.test(msg));

/** Split "<field>: Invalid value: <v>: <detail>" / "<field>: Forbidden: <detail>" causes out of a message. */
export function parseRejections(msg: string): Rejection[] {
  const out: Rejection[] = [];
  // the object: `Kind.group "name" is invalid:` (kubectl/apiserver) — kind may carry its group
  const objM = /([A-Z][A-Za-z]+)(?:\.[a-z0-9.-]+)? "([^"]+)" is invalid: /.exec(msg);
  // wrangler/K3s and controllers often name the namespace first: "failed to update kube-system/kube-dns ..."
  const nsM = /(?:update|apply|patch|create)\s+([a-z0-9-]+)\/([a-z0-9.-]+)/i.exec(msg);
  const tail = objM ? msg.slice(objM.index + objM[0].length) : msg;
  // causes are joined with ", " inside [...] when there are several; split on the field-path starts
  const causeRe = /([a-zA-Z][\w.[\]-]*): (?:Invalid value: (.*?): ((?:field is immutable|may not change once set)[^,\]]*)|Forbidden: ([^\]]*?(?:updates to statefulset spec for fields other than|is immutable after creation)[^\]]*?)(?=, [a-zA-Z][\w.[\]-]*: |\]|$))/g;
  let m: RegExpExecArray | null;
  while ((m = causeRe.exec(tail))) {
    out.push({
      kind: objM?.[1],
      name: objM?.[2],
      namespace: nsM && objM && nsM[2] === objM[2] ? nsM[1] : undefined,
      field: m[1],
      value: m[2] !== undefined ? cleanValue(m[2]) : undefined,
      detail: (m[3] ?? m[4] ?? '').trim(),
    });
  }
  if (out.length === 0 && isImmutableRejection(msg)) {
    out.push({ kind: objM?.[1], name: objM?.[2], detail: (IMMUTABLE_RE.exec(msg)?.[0] ?? '').trim() });
  }
  return out;
}

/** `["169.254.20.10"]`, `"169.254.20.10"`, `[]string{"a"}` → `169.254.20.10`; structured values stay as given. */
function cleanValue(v: string): string {
  const s = v.trim();
  const one = /^(?:\[\]string\{|\[)?"([^"]*)"(?:\}|\])?$/.exec(s);
  return one ? one[1]! : s;
}
