// The failover rehearsal's webhook receivers: they answer 204 at once and remember the id of every
// event that arrived (the `webhook-id` header, the event's public id), so that each event the
// database wrote can be looked for among the delivered ones.
import http from 'node:http';
import { listenForWebhooks } from '../lib/receivers.js';

export interface EventReceivers {
  urls: string[];
  /** Public ids of the events received (at least once), and how many deliveries came in all. */
  received(): { ids: Set<string>; deliveries: number };
  close(): Promise<void>;
}

export async function startEventReceivers(count: number): Promise<EventReceivers> {
  const ids = new Set<string>();
  let deliveries = 0;
  const servers: http.Server[] = [];
  const urls: string[] = [];
  for (let index = 0; index < count; index++) {
    const server = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        deliveries++;
        const id = request.headers['webhook-id'];
        if (typeof id === 'string') ids.add(id);
        response.writeHead(204).end();
      });
    });
    servers.push(server);
    urls.push(await listenForWebhooks(server));
  }
  return {
    urls,
    received: () => ({ ids, deliveries }),
    async close() {
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
