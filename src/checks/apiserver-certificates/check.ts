// The door's own certificate: the API server's serving certificate (read from the TLS handshake the client makes
// anyway) and the user's client certificate from the kubeconfig. K3s and kubeadm issue one-year certificates;
// an expired serving certificate locks every client out, an expired client certificate locks out its user.
import { detectDistribution, type Distribution } from '../../fingerprint.js';
import { human } from '../../lib/time.js';
import type { Severity } from '../../model.js';
import { R } from '../../resources.js';
import { normaliseEvents, CORE_EVENT_FIELDS, V1_EVENT_FIELDS } from '../../lib/events.js';
import { defineCheck, finding, type CheckContext, type Draft } from '../types.js';
import { byText } from '../../lib/order.js';

const CODES = {
  'ARCH-CERT01': "the API server's serving certificate expires soon (30 days: warning, 7: error) or has expired (critical)",
  'ARCH-CERT02': "the kubeconfig's client certificate expires soon or has expired",
  'ARCH-CERT03': "K3s/RKE2 report a node's own certificates expiring (CertificateExpirationWarning events)",
} as const;
type Code = keyof typeof CODES;

const DAY = 86_400_000;

function renewServing(d: Distribution): string[] {
  switch (d) {
    case 'K3s':
    case 'RKE2': {
      const bin = d === 'K3s' ? 'k3s' : 'rke2';
      return [
        `${bin} renews certificates that expire within 90 days when it starts: restart ${d === 'K3s' ? 'k3s' : 'rke2-server'} on each server, one at a time (or ${bin} certificate rotate, then restart)`,
      ];
    }
    case 'kubeadm':
      return [
        'on each control-plane node: kubeadm certs check-expiration; kubeadm certs renew all; then restart the control-plane static pods (move their manifests out of /etc/kubernetes/manifests and back)',
      ];
    case 'EKS':
    case 'GKE':
    case 'AKS':
      return [`${d} rotates the API server certificate itself: if it is close to expiry, open a case with the provider`];
    case 'OpenShift':
      return [
        'the kube-apiserver operator rotates serving certificates: oc get clusteroperator kube-apiserver; oc get secrets -n openshift-kube-apiserver',
      ];
    default:
      return [
        "renew the API server serving certificate (--tls-cert-file) with your distribution's tooling, then restart the API servers one at a time",
      ];
  }
}

function severityFor(msLeft: number): Severity | null {
  return msLeft < 0 ? 'critical' : msLeft < 7 * DAY ? 'error' : msLeft < 30 * DAY ? 'warning' : null;
}

// K3s and RKE2's cert monitor (since 2024: k3s-io/k3s#9742) writes one Warning event per node, reason
// CertificateExpirationWarning: "Node certificates require attention - restart k3s on this node to trigger
// automatic rotation: <dir>/<file>.crt: certificate CN=…[,O=…] will expire within 90 days at <RFC 3339>, …".
const CERT_IN_EVENT =
  /([\w.-]+\/[\w.-]+\.crt): certificate (.+?) (?:will expire within \d+ days|(?:has )?expired) at (\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2}))/g;

interface NodeCerts {
  node: string;
  product: 'k3s' | 'rke2';
  certs: Array<{ file: string; subject: string; notAfter: string }>;
  lastReported?: number;
  count: number;
}

/** The latest CertificateExpirationWarning of each node, its certificates parsed. */
function nodeWarnings(ctx: CheckContext): NodeCerts[] {
  const byNode = new Map<string, NodeCerts>();
  for (const e of normaliseEvents(ctx.snap.of(R.events), ctx.snap.of(R.eventsV1))) {
    if (e.reason !== 'CertificateExpirationWarning' || e.object.kind !== 'Node') continue;
    const prev = byNode.get(e.object.name);
    if (prev && (prev.lastReported ?? 0) >= (e.last ?? 0)) continue;
    const certs = [...e.message.matchAll(CERT_IN_EVENT)].map((m) => ({ file: m[1]!, subject: m[2]!, notAfter: m[3]! }));
    if (!certs.length) continue;
    byNode.set(e.object.name, {
      node: e.object.name,
      product: /restart rke2\b|rke2-cert-monitor/.test(`${e.message} ${e.source}`) ? 'rke2' : 'k3s',
      certs,
      lastReported: e.last,
      count: e.count,
    });
  }
  return [...byNode.values()].sort((a, b) => byText(a.node, b.node));
}

function nodeFindings(ctx: CheckContext): Array<Draft<Code>> {
  return nodeWarnings(ctx).map((w) => {
    const first = w.certs.reduce((a, b) => (Date.parse(b.notAfter) < Date.parse(a.notAfter) ? b : a));
    const left = Date.parse(first.notAfter) - ctx.now.getTime();
    const sev: Severity = severityFor(left) ?? 'info';
    const when = left < 0 ? `expired ${human(Math.round(-left / 1000))} ago` : `expire in ${human(Math.round(left / 1000))}`;
    const svc = w.product === 'rke2' ? 'rke2-server (or rke2-agent)' : 'k3s (or k3s-agent)';
    const seen =
      w.lastReported !== undefined
        ? ` Last reported ${human(Math.round((ctx.now.getTime() - w.lastReported) / 1000))} before the capture${w.count > 1 ? `, ${w.count} times` : ''}.`
        : '';
    const unique = [...new Set(w.certs.map((c) => `${c.file} (${c.subject})`))];
    return finding(
      'ARCH-CERT03',
      sev,
      `node ${w.node}: ${unique.length} ${w.product === 'rke2' ? 'RKE2' : 'K3s'} certificate${unique.length === 1 ? '' : 's'} ${when} (${first.notAfter.slice(0, 10)})`,
      `${w.product === 'rke2' ? 'RKE2' : 'K3s'} reports on node ${w.node} (CertificateExpirationWarning): ${unique.slice(0, 6).join(', ')}${unique.length > 6 ? `, and ${unique.length - 6} more` : ''}. ${left < 0 ? 'Components using them can no longer authenticate.' : sev === 'info' ? 'Nothing is broken yet: they are renewed the next time the service starts on this node.' : 'When they expire, the components on this node can no longer talk to the API server (or etcd).'}${seen}`,
      {
        objects: [{ kind: 'Node', apiVersion: 'v1', name: w.node }],
        evidence: {
          node: w.node,
          certificates: w.certs,
          lastReported: w.lastReported ? new Date(w.lastReported).toISOString() : undefined,
        },
        why: `${w.product === 'rke2' ? 'RKE2' : 'K3s'} issues one-year certificates and renews those within their renewal window only when the service starts; a node that is never restarted lets them expire.`,
        fix: [
          `restart ${svc} on ${w.node}, one server at a time (cost: the control-plane components of that node restart; running pods keep running; with embedded etcd, keep a quorum up while you do it)`,
          `then on ${w.node}: for f in /var/lib/rancher/${w.product}/server/tls/*.crt /var/lib/rancher/${w.product}/agent/*.crt; do echo "$f $(openssl x509 -enddate -noout -in "$f")"; done   # the new dates`,
        ],
      },
    );
  });
}

export const apiserverCertificates = defineCheck({
  id: 'apiserver-certificates',
  title: 'Certificates of the door (API server and client)',
  severity: 'critical',
  map: [
    { contract: 'door', part: 'API servers' },
    { contract: 'door', part: 'serving certificate' },
  ],
  codes: CODES,
  proofs: { 'ARCH-CERT03': ['Event'] },
  reads: [{ ...R.eventsV1, fields: V1_EVENT_FIELDS }],
  needs: [
    // core/v1 only: events.k8s.io/v1 is the same storage (events.k8s.io objects in snapshot files are still read)
    {
      ...R.events,
      fields: CORE_EVENT_FIELDS,
      role: 'evidence',
      lost: 'K3s/RKE2 node certificate warnings (CertificateExpirationWarning) are not read; the serving and client certificates still are',
    },
  ],
  docs: {
    summary:
      "the API server's serving certificate (read from the TLS handshake), the kubeconfig's client certificate and K3s/RKE2 nodes' own certificates (their CertificateExpirationWarning events): warning at 30 days, error at 7, critical when expired",
    what: "The serving certificate the API server presented during this run's TLS handshake (subject, issuer, notAfter), the client certificate of the kubeconfig user, if any, and on K3s/RKE2 the CertificateExpirationWarning events their cert monitor writes on each Node (every certificate of that node within its renewal window, with its expiry).",
    why: 'The API server is the only door: when its certificate expires, every client — kubectl, controllers, kubelets — fails TLS verification and the cluster is locked. K3s and kubeadm issue one-year certificates that renew only on restart or upgrade; clusters that run untouched for a year hit this.',
    fix: "Renew before expiry with the distribution's tooling: K3s/RKE2 renew certificates within 90 days of expiry on restart (or `k3s certificate rotate`); kubeadm `kubeadm certs renew all` then restart the control-plane pods; managed clouds rotate their own. For a client certificate, get a new kubeconfig (kubeadm kubeconfig user, or the distribution's admin kubeconfig).",
    limits:
      "Only the API server that answered this run is seen; behind a load balancer another server may have another certificate. Saved snapshots carry what the capture saw; plain kubectl output carries no handshake. Other distributions' node certificates (kubelet, kubeadm control-plane client certificates) are not visible through the API. When the serving certificate has already expired, no client connects: kubectl-arch then says so in its connection error instead.",
  },
  run(ctx) {
    const tls = ctx.snap.header.tls;
    const fromNodes = nodeFindings(ctx);
    if (!tls) {
      if (fromNodes.length)
        return { findings: fromNodes, notes: ['the serving certificate was not seen (no TLS handshake in this capture)'] };
      return { findings: [], skipped: 'no TLS handshake in this capture (a snapshot file without one, or a plain http server)' };
    }
    const findings: Array<Draft<Code>> = [...fromNodes];
    const dist = detectDistribution(ctx.snap).distribution;
    for (const [code, cert, what] of [
      ['ARCH-CERT01', tls.serving, "the API server's serving certificate"],
      ['ARCH-CERT02', tls.client, 'your client certificate (kubeconfig)'],
    ] as const) {
      if (!cert) continue;
      const left = Date.parse(cert.notAfter) - ctx.now.getTime();
      const sev = severityFor(left);
      if (!sev || Number.isNaN(left)) continue;
      const when = left < 0 ? `expired ${human(Math.round(-left / 1000))} ago` : `expires in ${human(Math.round(left / 1000))}`;
      findings.push(
        finding(
          code,
          sev,
          `${what} ${when} (${cert.notAfter.slice(0, 10)})`,
          `${cert.subject ? `Subject ${cert.subject}` : 'Certificate'}${cert.issuer ? `, issued by ${cert.issuer}` : ''}, valid until ${cert.notAfter}.${code === 'ARCH-CERT01' ? ' When it expires, every client fails TLS verification: kubectl, controllers and kubelets are locked out.' : ' When it expires, this kubeconfig can no longer authenticate.'}`,
          {
            evidence: { ...cert, daysLeft: Math.floor(left / DAY) },
            why: 'The API server is the only door to the cluster; its certificates are the lock.',
            fix:
              code === 'ARCH-CERT01'
                ? renewServing(dist)
                : [
                    "get a renewed kubeconfig for this user (kubeadm: kubeadm kubeconfig user --client-name …; K3s: the server's /etc/rancher/k3s/k3s.yaml after its renewal)",
                  ],
          },
        ),
      );
    }
    return {
      findings,
      passed: [
        tls.serving ? `serving certificate valid until ${tls.serving.notAfter.slice(0, 10)}` : '',
        tls.client ? `client certificate valid until ${tls.client.notAfter.slice(0, 10)}` : '',
      ]
        .filter(Boolean)
        .join('; '),
    };
  },
});
