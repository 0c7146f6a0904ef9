// The field notes' deleted app: Argo CD Application `blog` was deleted without resources-finalizer.argocd.argoproj.io;
// its Deployment still serves blog.home.arpa, and its volume and ClusterRole outlive it.
import { withTracking } from '../../../scenarios/field-notes.js';
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'deleted-argo-app',
    summary: 'Argo CD Application blog deleted without its cascading finalizer: its objects still serve traffic',
    base: 'field-notes',
    example: true,
    build(c) {
      const work = ['ilwon', 'solomon', 'david', 'louise', 'isagal'];
      withTracking(c.deployment('blog-web', 'blog', 2, { app: 'blog-web' }, { nodes: work }), 'blog');
      withTracking(c.service('blog-web', 'blog', { app: 'blog-web' }, '10.43.77.14'), 'blog');
      c.add(
        withTracking(
          {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'Ingress',
            metadata: c.meta('blog', 'blog'),
            spec: {
              ingressClassName: 'traefik',
              rules: [
                {
                  host: 'blog.home.arpa',
                  http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'blog-web', port: { number: 80 } } } }] },
                },
              ],
            },
            status: { loadBalancer: { ingress: [{ ip: '192.168.219.101' }] } },
          },
          'blog',
        ),
      );
      c.add(
        withTracking(
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: c.meta('blog-config', 'blog'), data: { SITE_URL: 'https://blog.home.arpa' } },
          'blog',
        ),
      );
      c.add(
        withTracking(
          {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: c.meta('blog-data', 'blog'),
            spec: {
              accessModes: ['ReadWriteOnce'],
              storageClassName: 'local-path',
              volumeName: 'pvc-3f6b1c2e-blog-data',
              resources: { requests: { storage: '5Gi' } },
            },
            status: { phase: 'Bound' },
          },
          'blog',
        ),
      );
      c.add(
        withTracking(
          {
            apiVersion: 'v1',
            kind: 'PersistentVolume',
            metadata: c.meta('pvc-3f6b1c2e-blog-data', undefined, {
              annotations: { 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path' },
            }),
            spec: {
              capacity: { storage: '5Gi' },
              accessModes: ['ReadWriteOnce'],
              persistentVolumeReclaimPolicy: 'Retain',
              storageClassName: 'local-path',
              claimRef: { kind: 'PersistentVolumeClaim', namespace: 'blog', name: 'blog-data' },
              hostPath: { path: '/var/lib/rancher/k3s/storage/pvc-3f6b1c2e_blog_blog-data' },
              // the local-path provisioner pins the volume to the node it was made on
              nodeAffinity: {
                required: {
                  nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['david'] }] }],
                },
              },
            },
            status: { phase: 'Bound' },
          },
          'blog',
        ),
      );
      c.add(
        withTracking(
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: c.meta('blog-reader'),
            rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
          },
          'blog',
        ),
      );
    },
    expect: {
      findings: [
        {
          code: 'ARCH-OR01',
          severity: 'error',
          title: 'Argo CD Application argocd/blog (gone): 5 objects in namespace blog, 2 cluster-scoped — still serving traffic',
        },
      ],
      absent: ['ARCH-RL03'],
      exitCode: 1,
    },
  },
];
