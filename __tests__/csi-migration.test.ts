// CSI migration is on by default only from a release per plugin (AWS EBS 1.23): before it, a gp2 StorageClass with
// kubernetes.io/aws-ebs is served by the in-tree plugin, and no ebs.csi.aws.com is needed — no finding then.
import { expect, test } from '@jest/globals';
import { csiDrivers } from '../src/checks/csi-drivers/check.js';
import { runChecks } from '../src/checks/run.js';
import { R } from '../src/resources.js';
import { obj, snapshotOf } from './helpers/fixtures.js';

const cluster = (version: string) =>
  snapshotOf(
    [
      obj('storage.k8s.io/v1', 'StorageClass', 'gp2', undefined, {
        provisioner: 'kubernetes.io/aws-ebs',
        metadata: { name: 'gp2', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      }),
      obj('v1', 'PersistentVolumeClaim', 'data', 'app', { spec: { storageClassName: 'gp2' }, status: { phase: 'Bound' } }),
      obj('storage.k8s.io/v1', 'CSINode', 'ip-10-0-0-1', undefined, { spec: { drivers: [] } }),
      obj('v1', 'Node', 'ip-10-0-0-1', undefined, { spec: { providerID: 'aws:///eu-west-1a/i-0abc' } }),
    ],
    {
      serverVersion: version,
      captured: [R.persistentvolumes, R.storageclasses, R.persistentvolumeclaims, R.csinodes, R.csidrivers, R.nodes, R.events, R.pods],
    },
  );

test('EKS 1.22: the in-tree plugin serves gp2, nothing to install', () => {
  const [r] = runChecks([csiDrivers], cluster('v1.22.17-eks-0a21954'));
  expect(r!.findings).toEqual([]);
});

test('EKS 1.23: migrated, so ebs.csi.aws.com is needed and missing', () => {
  const [r] = runChecks([csiDrivers], cluster('v1.23.13-eks-fb459a0'));
  expect(r!.findings.map((f) => f.code)).toEqual(['ARCH-CSI01']);
  expect(r!.findings[0]!.message).toContain('ebs.csi.aws.com');
});
