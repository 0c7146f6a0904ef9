import { describe, expect, test } from '@jest/globals';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../src/cluster/kubeconfig.js';
import { tempDir } from './helpers/tmp.js';
import { InputError } from '../src/errors.js';

const dir = tempDir();
const write = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const kc = (ctx: string, server: string, extra = ''): string => `apiVersion: v1
kind: Config
current-context: ${ctx}
clusters:
- name: ${ctx}
  cluster:
    server: ${server}
    certificate-authority: certs/ca.crt
users:
- name: ${ctx}
  user:
    token: t-${ctx}
contexts:
- name: ${ctx}
  context: {cluster: ${ctx}, user: ${ctx}, namespace: ns-${ctx}}
${extra}`;

const a = write('a.yaml', kc('alpha', 'https://10.0.0.1:6443'));
const b = write('b.yaml', kc('beta', 'https://10.0.0.2:6443'));
const env = (over: Record<string, string | undefined>): NodeJS.ProcessEnv => ({ HOME: join(dir, 'nohome'), ...over });

describe('kubeconfig resolution (kubectl semantics)', () => {
  test('KUBECONFIG list merges first-wins; missing files are skipped', () => {
    const cfg = resolveConfig({}, env({ KUBECONFIG: [join(dir, 'missing.yaml'), a, b].join(':') }));
    expect(cfg.contextName).toBe('alpha');
    expect(cfg.server).toBe('https://10.0.0.1:6443');
    expect(cfg.namespace).toBe('ns-alpha');
    const beta = resolveConfig({ context: 'beta' }, env({ KUBECONFIG: `${a}:${b}` }));
    expect(beta.server).toBe('https://10.0.0.2:6443');
  });

  test('--kubeconfig wins over KUBECONFIG', () => {
    const cfg = resolveConfig({ kubeconfig: b }, env({ KUBECONFIG: a }));
    expect(cfg.contextName).toBe('beta');
  });

  test('--cluster and --user override the context; -n overrides its namespace', () => {
    const cfg = resolveConfig({ context: 'alpha', cluster: 'beta', user: 'beta', namespace: 'x' }, env({ KUBECONFIG: `${a}:${b}` }));
    expect(cfg.server).toBe('https://10.0.0.2:6443');
    expect(cfg.raw.users[0]?.name).toBe('beta');
    expect(cfg.namespace).toBe('x');
  });

  test('relative certificate paths resolve against the kubeconfig file', () => {
    const cfg = resolveConfig({ kubeconfig: a }, env({}));
    expect((cfg.raw.clusters[0]?.cluster as Record<string, string>)['certificate-authority']).toBe(join(dir, 'certs/ca.crt'));
  });

  test('a context that does not exist names the ones that do', () => {
    expect(() => resolveConfig({ kubeconfig: a, context: 'nope' }, env({}))).toThrow(/context "nope" does not exist.*alpha/);
  });

  test('malformed kubeconfig names the file and line', () => {
    const bad = write('bad.yaml', 'apiVersion: v1\nclusters:\n- name: x\n  cluster: {server: [\n');
    expect(() => resolveConfig({ kubeconfig: bad }, env({}))).toThrow(InputError);
    expect(() => resolveConfig({ kubeconfig: bad }, env({}))).toThrow(/bad\.yaml:\d+: malformed YAML/);
  });

  test('--kubeconfig that does not exist is an input error', () => {
    expect(() => resolveConfig({ kubeconfig: join(dir, 'nope.yaml') }, env({}))).toThrow(/does not exist/);
  });

  test('no kubeconfig and not in a pod: clear error', () => {
    expect(() => resolveConfig({}, env({}))).toThrow(/no kubeconfig found/);
  });

  test('in a pod without a kubeconfig: the service account (token file, CA, namespace)', () => {
    const sa = join(dir, 'sa');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'eyJ...');
    writeFileSync(join(sa, 'ca.crt'), 'ca');
    writeFileSync(join(sa, 'namespace'), 'monitoring\n');
    const cfg = resolveConfig({}, env({ KUBERNETES_SERVICE_HOST: '10.43.0.1', KUBERNETES_SERVICE_PORT: '443' }), sa);
    expect(cfg).toMatchObject({ inCluster: true, server: 'https://10.43.0.1:443', namespace: 'monitoring', contextName: 'in-cluster' });
    expect(cfg.raw.users[0]?.user).toEqual({ tokenFile: join(sa, 'token') });
    expect(resolveConfig({}, env({ KUBERNETES_SERVICE_HOST: 'fd00::1' }), sa).server).toBe('https://[fd00::1]:443');
  });

  test('~/.kube/config is the default', () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), kc('homectx', 'https://10.0.0.3:6443'));
    expect(resolveConfig({}, { HOME: home }).contextName).toBe('homectx');
  });
});
