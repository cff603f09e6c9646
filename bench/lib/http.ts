// One request at a time over a kept-alive connection, timed from the first byte sent to the last
// byte of the body received (what a partner's client waits for).
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export interface TimedResponse {
  status: number;
  body: string;
  ms: number;
}

export function timedRequest(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<TimedResponse> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(url, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - started,
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

export async function getJson<T>(
  url: string,
  authorization: string,
): Promise<{ status: number; json: T; ms: number }> {
  const response = await timedRequest('GET', url, { authorization });
  return { status: response.status, json: JSON.parse(response.body) as T, ms: response.ms };
}

export function closeConnections(): void {
  agent.destroy();
}
