// A TCP proxy in front of a service (PostgreSQL) that a test can stop and start again on the same
// port: while stopped, connecting is refused and open connections are cut, as when the database
// host goes away.
import { createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = new (client.constructor as typeof Socket)();
        sockets.add(client).add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        upstream.connect(target.port, target.host, () => {
          client.pipe(upstream);
          upstream.pipe(client);
        });
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        const address = next.address();
        port = typeof address === 'object' && address ? address.port : port;
        server = next;
        resolve();
      });
    });

  const stop = async () => {
    const current = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    stop,
    start: listen,
    close: stop,
  };
}
