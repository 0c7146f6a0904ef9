import { describe, expect, test } from '@jest/globals';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../src/errors.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { snapshotDocuments } from '../src/snapshot/save.js';
import { R } from '../src/resources.js';
import { EXAMPLE } from './helpers/fixtures.js';
import { tempDir } from './helpers/tmp.js';

const tmp = (): string => tempDir();

describe('snapshot files', () => {
  test('loads the embedded example directory with its header', () => {
    const snap = loadSnapshot(EXAMPLE);
    expect(snap.headerless).toBe(false);
    expect(snap.header.serverVersion?.gitVersion).toBe('v1.35.4+k3s1');
    expect(snap.of(R.nodes)).toHaveLength(6);
    expect(snap.of(R.namespaces)).toHaveLength(45);
    expect(snap.visibility(R.nodes)).toBeNull();
    // the header records Flux as not installed: visible as a reason, not as an empty list
    expect(snap.visibility(R.fluxKustomizations)?.reason).toMatch(/not installed/);
  });

  test('loads plain `kubectl get -o json` List output', () => {
    const dir = tmp();
    const file = join(dir, 'nodes.json');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'Node', metadata: { name: 'a' } },
          { apiVersion: 'v1', kind: 'Node', metadata: { name: 'b' } },
        ],
      }),
    );
    const snap = loadSnapshot(file);
    expect(snap.headerless).toBe(true);
    expect(snap.of(R.nodes).map((n) => n.metadata.name)).toEqual(['a', 'b']);
    // without a header, a type that is absent is "not captured", never "none exist"
    expect(snap.visibility(R.pods)?.reason).toMatch(/not captured/);
  });

  test('loads multi-document YAML and a directory of files', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(
      join(dir, 'a.yaml'),
      '---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: two\n',
    );
    writeFileSync(
      join(dir, 'sub', 'b.yml'),
      'apiVersion: apps/v1\nkind: DeploymentList\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: one}\n',
    );
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    const snap = loadSnapshot(dir);
    expect(snap.of(R.namespaces)).toHaveLength(2);
    expect(snap.of(R.deployments)[0]?.metadata.name).toBe('web');
  });

  test('malformed YAML names the file and line and loads nothing', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'a.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n');
    writeFileSync(join(dir, 'b.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: [broken\n  namespace: x\n');
    expect(() => loadSnapshot(dir)).toThrow(InputError);
    expect(() => loadSnapshot(dir)).toThrow(/b\.yaml:\d+: malformed YAML/);
  });

  test('malformed JSON names the file and line', () => {
    const file = join(tmp(), 'x.json');
    writeFileSync(file, '{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": [\n    {"kind": }\n  ]\n}\n');
    expect(() => loadSnapshot(file)).toThrow(/x\.json:5: malformed JSON/);
  });

  test('a document that is not an object says which document', () => {
    const file = join(tmp(), 'y.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n---\njust a string\n');
    expect(() => loadSnapshot(file)).toThrow(/y\.yaml:5: expected a Kubernetes object/);
    const f2 = join(tmp(), 'z.yaml');
    writeFileSync(f2, 'apiVersion: v1\nkind: Namespace\nspec: {}\n');
    expect(() => loadSnapshot(f2)).toThrow(/z\.yaml:1: not a Kubernetes object/);
  });

  test('missing path is an input error', () => {
    expect(() => loadSnapshot('/nonexistent/snap.yaml')).toThrow(/no such file/);
  });

  test('save then load round-trips objects, header and empty types (YAML and JSON)', () => {
    const snap = loadSnapshot(EXAMPLE);
    snap.addList('apps', 'StatefulSet', []);
    for (const format of ['yaml', 'json'] as const) {
      const file = join(tmp(), `s.${format}`);
      writeFileSync(file, [...snapshotDocuments(snap, format)].join(''));
      const back = loadSnapshot(file);
      expect(back.count()).toBe(snap.count());
      expect(back.header.serverVersion).toEqual(snap.header.serverVersion);
      expect(back.visibility(R.statefulsets)).toBeNull();
      expect(back.visibility(R.fluxKustomizations)?.status).toBe(404);
    }
  });

  test('scoped() keeps one namespace and cluster-scoped objects', () => {
    const snap = loadSnapshot(EXAMPLE).scoped('blog');
    expect(snap.of(R.pods).every((p) => p.metadata.namespace === 'blog')).toBe(true);
    expect(snap.of(R.pods).length).toBeGreaterThan(0);
    expect(snap.of(R.nodes)).toHaveLength(6);
  });
});
