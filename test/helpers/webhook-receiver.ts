// A real HTTP receiver of webhooks on 127.0.0.1 for the webhook tests: it records every request
// (path, headers, raw body) and answers as each path's behaviour says (status, delay, hang), and
// verifies signatures with the `standardwebhooks` package, as a partner would.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Order of arrival across all paths. */
  sequence: number;
}

/** What to answer to the n-th request (0-based) on a path. */
export type Behaviour = (n: number) => {
  status?: number;
  hang?: boolean;
  delayMs?: number;
  body?: string;
  headers?: Record<string, string>;
};

export interface Receiver {
  port: number;
  url(path: string): string;
  requests: ReceivedRequest[];
  on(path: string, behaviour: Behaviour): void;
  /** Requests on a path. */
  at(path: string): ReceivedRequest[];
  /** Waits until `predicate` holds for the requests (polling), or fails after `timeoutMs`. */
  waitFor(
    predicate: (requests: ReceivedRequest[]) => boolean,
    timeoutMs?: number,
    what?: string,
  ): Promise<void>;
  close(): Promise<void>;
}

export interface WebhookEnvelope {
  id: string;
  type: string;
  created_at: string;
  // biome-ignore lint/suspicious/noExplicitAny: the resource, compared as a whole to the API's answer
  data: any;
}

/** The payload, if the request's signature verifies with the secret; throws otherwise. */
export function verified(request: ReceivedRequest, secret: string): WebhookEnvelope {
  return new Webhook(secret).verify(request.body, request.headers) as WebhookEnvelope;
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(', ');
  }
  return headers;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const behaviours = new Map<string, Behaviour>();
  const counts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] as string;
      const n = counts.get(path) ?? 0;
      counts.set(path, n + 1);
      requests.push({
        path,
        headers: headersOf(req),
        body: Buffer.concat(chunks).toString('utf8'),
        sequence: requests.length,
      });
      const answer = behaviours.get(path)?.(n) ?? {};
      if (answer.hang) {
        hanging.add(res);
        return;
      }
      const send = () => {
        res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? 'ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const listening = typeof address === 'object' && address ? address.port : port;
  return {
    port: listening,
    url: (path) => `http://127.0.0.1:${listening}${path}`,
    requests,
    on: (path, behaviour) => {
      behaviours.set(path, behaviour);
    },
    at: (path) => requests.filter((request) => request.path === path),
    async waitFor(predicate, timeoutMs = 15_000, what = 'the expected webhooks') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(requests)) {
        if (Date.now() > deadline) {
          throw new Error(
            `timed out waiting for ${what}; received: ${JSON.stringify(requests.map((r) => [r.path, r.body.slice(0, 80)]))}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
