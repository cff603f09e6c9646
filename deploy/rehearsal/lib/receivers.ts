// Webhook receivers of both rehearsals. They answer at once, until `hold()`: from then on each
// answers 9 s after a delivery arrives (just under the service's 10 s attempt timeout), like a
// partner's overloaded endpoint. `release()` answers the held ones now and later ones at once
// again. They count what arrived and how many deliveries they held at one moment, and remember the
// id of every event that arrived (the `webhook-id` header, the event's public id), so that each
// event the database wrote can be looked for among the delivered ones.
import http from 'node:http';

export const HOLD_MS = 9000;

export interface Receivers {
  urls: string[];
  /** Deliveries received so far, and the most held at one moment. */
  stats(): { received: number; maxHeld: number; held: number };
  /** Public ids of the events received (at least once), and how many deliveries came in all. */
  received(): { ids: Set<string>; deliveries: number };
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/** A receiver listening on a free port of 127.0.0.1: the URL its endpoint is created with. */
export async function listenForWebhooks(server: http.Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return `http://127.0.0.1:${port}/webhooks/invoicing`;
}

export async function startReceivers(count: number): Promise<Receivers> {
  let holding = false;
  let received = 0;
  let held = 0;
  let maxHeld = 0;
  const waiting = new Set<() => void>();
  const ids = new Set<string>();
  const servers: http.Server[] = [];

  const handler: http.RequestListener = (request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      const id = request.headers['webhook-id'];
      if (typeof id === 'string') ids.add(id);
      const answer = () => {
        waiting.delete(answer);
        clearTimeout(timer);
        held--;
        if (!response.writableEnded) response.writeHead(204).end();
      };
      held++;
      if (holding) maxHeld = Math.max(maxHeld, held);
      const timer = setTimeout(answer, holding ? HOLD_MS : 0);
      waiting.add(answer);
    });
  };

  const urls: string[] = [];
  for (let index = 0; index < count; index++) {
    const server = http.createServer(handler);
    servers.push(server);
    urls.push(await listenForWebhooks(server));
  }

  return {
    urls,
    stats: () => ({ received, maxHeld, held }),
    received: () => ({ ids, deliveries: received }),
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const answer of [...waiting]) answer();
    },
    async close() {
      holding = false;
      for (const answer of [...waiting]) answer();
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}
