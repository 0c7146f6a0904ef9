// A TCP port of a network namespace reached from outside it, through a Unix socket (the file system is shared across
// network namespaces, loopback is not): `listen-unix SOCK HOST PORT` runs inside the namespace and forwards each
// connection on SOCK to HOST:PORT there; `listen-tcp HOST PORT SOCK` runs outside and forwards HOST:PORT to SOCK.
// Each prints "ready" once it listens. Bytes are passed as they are (TLS goes through untouched).
import net from 'node:net';

const [mode, a, b, c] = process.argv.slice(2);
const pipe = (client, connect) => {
  const up = connect();
  up.on('error', () => client.destroy());
  client.on('error', () => up.destroy());
  client.pipe(up).pipe(client);
};
const server =
  mode === 'listen-unix'
    ? net.createServer((s) => pipe(s, () => net.connect(Number(c), b)))
    : net.createServer((s) => pipe(s, () => net.connect(c)));
const ready = () => process.stdout.write('ready\n');
if (mode === 'listen-unix') server.listen(a, ready);
else if (mode === 'listen-tcp') server.listen(Number(b), a, ready);
else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
