// A validating admission webhook for the real-cluster suite: HTTPS (CERT, KEY) on each ADDRESS:PORT given, answering
// every AdmissionReview "allowed" except an object named "deny-me", which it refuses with a message naming the
// address that answered (so a test sees that the API server reached this very backend). Prints "ready" once every
// address listens. Usage: webhook-server.mjs CERT KEY ADDRESS:PORT...
import { readFileSync } from 'node:fs';
import https from 'node:https';

const [cert, key, ...listen] = process.argv.slice(2);
let waiting = listen.length;
for (const at of listen) {
  const i = at.lastIndexOf(':');
  const host = at.slice(0, i);
  const server = https.createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      let review;
      try {
        review = JSON.parse(body);
      } catch {
        res.writeHead(400).end();
        return;
      }
      const name = review?.request?.object?.metadata?.name ?? review?.request?.name;
      const allowed = name !== 'deny-me';
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: review?.request?.uid, allowed, ...(allowed ? {} : { status: { code: 403, message: `denied by ${at}` } }) },
        }),
      );
    });
  });
  server.listen(Number(at.slice(i + 1)), host, () => {
    if (--waiting === 0) process.stdout.write('ready\n');
  });
}
