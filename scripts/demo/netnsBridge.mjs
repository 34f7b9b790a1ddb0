// Runs inside a fresh network namespace (started by `unshare -n`), where only the loopback
// interface exists: brings `lo` up, forwards 127.0.0.1:<port> to the fake API's Unix socket
// (a file-system socket is reachable across network namespaces), then runs the given command and
// exits with its status. Nothing in the namespace can reach any other address.
//
//   node netnsBridge.mjs <unix socket> <port> -- <command> [args...]
import { spawn, spawnSync } from 'node:child_process';
import { connect, createServer } from 'node:net';

const [socketPath, portText, dashes, command, ...args] = process.argv.slice(2);
if (!socketPath || !portText || dashes !== '--' || !command) {
  process.stderr.write('usage: netnsBridge.mjs <unix socket> <port> -- <command> [args...]\n');
  process.exit(2);
}

const up = spawnSync('ip', ['link', 'set', 'lo', 'up'], { stdio: 'inherit' });
if (up.status !== 0) {
  process.stderr.write('netnsBridge: could not bring up the loopback interface\n');
  process.exit(3);
}

const server = createServer((client) => {
  const upstream = connect(socketPath);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});

server.listen(Number(portText), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  process.on('SIGTERM', forward);
  process.on('SIGINT', forward);
  child.on('error', (error) => {
    process.stderr.write(`netnsBridge: ${error.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    server.close();
    process.exit(code ?? (signal ? 128 : 1));
  });
});
