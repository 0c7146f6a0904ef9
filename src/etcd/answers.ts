// What an etcd JSON gateway answers, checked field by field before the probe reads it: an endpoint that answers
// with wrong types ("raftTerm": "1e999", a list for a mapping) is an endpoint that does not answer, with the
// reason, never an internal error that hides what the other endpoints said. The gateway writes 64-bit integers
// as decimal strings; numbers are taken too.

/** A gateway answer that is not what etcd sends: the message says which field and what it held. */
export class MalformedAnswer extends Error {}

type Obj = Record<string, unknown>;

const shown = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/** where: the field it is, "" for the whole answer. */
function object(v: unknown, where: string): Obj {
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new MalformedAnswer(`${where ? `${where} ` : ''}expected a mapping, found ${shown(v)}`);
  return v as Obj;
}

/** An unsigned 64-bit integer as a decimal string; undefined when absent. */
function uint64(o: Obj, k: string, where = ''): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && /^\d{1,20}$/.test(v) && BigInt(v) < 2n ** 64n) return BigInt(v).toString();
  throw new MalformedAnswer(`${where}${k} must be a whole number, found ${shown(v)}`);
}

function str(o: Obj, k: string, where = ''): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new MalformedAnswer(`${where}${k} must be a string, found ${shown(v)}`);
  return v;
}

function strings(o: Obj, k: string, where = ''): string[] | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new MalformedAnswer(`${where}${k} must be a list of strings, found ${shown(v)}`);
  return v as string[];
}

function bool(o: Obj, k: string, where = ''): boolean | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new MalformedAnswer(`${where}${k} must be true or false, found ${shown(v)}`);
  return v;
}

function list(o: Obj, k: string): unknown[] {
  const v = o[k];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new MalformedAnswer(`${k} must be a list, found ${shown(v)}`);
  return v;
}

const header = (o: Obj): { memberId?: string; clusterId?: string } => {
  const h = o.header === undefined || o.header === null ? {} : object(o.header, 'header:');
  return { memberId: uint64(h, 'member_id', 'header.'), clusterId: uint64(h, 'cluster_id', 'header.') };
};

export interface Status {
  memberId?: string;
  clusterId?: string;
  version?: string;
  dbSize?: string;
  dbSizeInUse?: string;
  leader?: string;
  raftIndex?: string;
  raftTerm?: string;
  isLearner?: boolean;
  errors?: string[];
}

/** Maintenance.Status. */
export function status(v: unknown): Status {
  const o = object(v, '');
  return {
    ...header(o),
    version: str(o, 'version'),
    dbSize: uint64(o, 'dbSize'),
    dbSizeInUse: uint64(o, 'dbSizeInUse'),
    leader: uint64(o, 'leader'),
    raftIndex: uint64(o, 'raftIndex'),
    raftTerm: uint64(o, 'raftTerm'),
    isLearner: bool(o, 'isLearner'),
    errors: strings(o, 'errors'),
  };
}

export interface MemberEntry {
  ID: string;
  name?: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

/** Cluster.MemberList. */
export function memberList(v: unknown): { clusterId?: string; members: MemberEntry[] } {
  const o = object(v, '');
  const members = list(o, 'members').map((m, i): MemberEntry => {
    const where = `members[${i}].`;
    const e = object(m, `members[${i}]:`);
    return {
      ID: uint64(e, 'ID', where) ?? '0',
      name: str(e, 'name', where),
      peerURLs: strings(e, 'peerURLs', where) ?? [],
      clientURLs: strings(e, 'clientURLs', where) ?? [],
      isLearner: bool(e, 'isLearner', where) ?? false,
    };
  });
  return { clusterId: header(o).clusterId, members };
}

/** Maintenance.Alarm (GET). */
export function alarms(v: unknown): Array<{ memberID: string; alarm: string }> {
  const o = object(v, '');
  return list(o, 'alarms').map((a, i) => {
    const e = object(a, `alarms[${i}]:`);
    return { memberID: uint64(e, 'memberID', `alarms[${i}].`) ?? '0', alarm: str(e, 'alarm', `alarms[${i}].`) ?? 'NONE' };
  });
}
