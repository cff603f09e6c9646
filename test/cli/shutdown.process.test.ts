// Graceful shutdown of the real `serve` process (issue 20, item 1): on SIGTERM /readyz answers 503
// at once, the API keeps serving for SHUTDOWN_DRAIN_MS with `Connection: close` on every answer (a
// kept-alive client gets its answer, then an orderly close, never a reset), then stops accepting,
// answers the request still in flight, and exits 0 within its bound. A second signal exits at once.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, type CliStorage, createCliStorage, type ServeProcess, startServe } from '../helpers/cli.js';
import { testStorage } from '../helpers/database.js';

const DRAIN_MS = 2000;
const TIMEOUT_MS = 8000;

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A plain TCP connection to the API, to see exactly what happens to it (headers, FIN or reset). */
class RawConnection {
  private buffer = '';
  private waiting: (() => void) | null = null;
  ended = false;
  error: NodeJS.ErrnoException | null = null;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.waiting?.();
    });
    socket.on('end', () => {
      this.ended = true;
      this.waiting?.();
    });
    socket.on('error', (error) => {
      this.error = error;
      this.waiting?.();
    });
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  send(text: string): void {
    this.socket.write(text);
  }

  /** The next complete response (Content-Length bodies, which is what the API sends). */
  async answer(timeoutMs = 15_000): Promise<RawAnswer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const headEnd = this.buffer.indexOf('\r\n\r\n');
      if (headEnd >= 0) {
        const [statusLine = '', ...lines] = this.buffer.slice(0, headEnd).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
        );
        const length = Number(headers['content-length'] ?? 0);
        const bodyStart = headEnd + 4;
        if (Buffer.byteLength(this.buffer.slice(bodyStart)) >= length) {
          const body = this.buffer.slice(bodyStart, bodyStart + length);
          this.buffer = this.buffer.slice(bodyStart + length);
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
      }
      if (this.error) throw this.error;
      if (this.ended) throw new Error(`connection ended before a full answer: ${this.buffer}`);
      if (Date.now() > deadline) throw new Error(`no answer in time: ${this.buffer}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
  }

  /** Waits for the server's end of the connection: an orderly FIN (true) or a reset (the error). */
  async closedByServer(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && !this.error) {
      if (Date.now() > deadline) throw new Error('the server kept the connection open');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (this.error) throw this.error;
  }
}

function get(path: string, key: string): string {
  return `GET /api/v1/partner${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: keep-alive\r\n\r\n`;
}

/** Resolves once nothing accepts connections at `url` any more. */
async function refusesConnections(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const connection = await RawConnection.open(url);
      connection.socket.destroy();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') return;
      throw error;
    }
    if (Date.now() > deadline) throw new Error('still accepting connections');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function exitOf(server: ServeProcess): Promise<{ code: number | null; at: number }> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) resolve({ code: server.child.exitCode, at: Date.now() });
    else server.child.once('exit', (code) => resolve({ code, at: Date.now() }));
  });
}

describe(`graceful shutdown of serve (${testStorage()})`, () => {
  let storage: CliStorage;
  const servers: ServeProcess[] = [];
  let key: string;

  const start = async (env: Record<string, string> = {}) => {
    const server = await startServe(
      {
        ...storage.env,
        OPS_PORT: '0',
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
        SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS),
        ...env,
      },
      { args: ['--demo'] },
    );
    servers.push(server);
    const demo = (server.ready as { demo: { live_key: { key: string } } | null }).demo;
    if (demo) key = demo.live_key.key;
    return server;
  };

  beforeAll(async () => {
    storage = await createCliStorage();
  });
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await storage?.close();
  });

  it('SIGTERM: readiness 503 at once, the drain serves with Connection: close, in-flight answered, exit 0 in bound', async () => {
    const server = await start({ LOG_LEVEL: 'info' });
    const opsUrl = (server.ready as { ops_url: string }).ops_url;
    expect((await fetch(`${opsUrl}/readyz`)).status).toBe(200);

    // A kept-alive client, and a write whose body is still arriving when the signal comes.
    const keptAlive = await RawConnection.open(server.url);
    keptAlive.send(get('/ping', key));
    const before = await keptAlive.answer();
    expect(before.status).toBe(200);
    expect(before.headers.connection).toBe('keep-alive');
    const body = JSON.stringify({ name: 'Cliente a meio do encerramento' });
    const inFlight = await RawConnection.open(server.url);
    inFlight.send(
      `POST /api/v1/partner/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nIdempotency-Key: shutdown-in-flight-1\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
        body.slice(0, 10),
    );

    const exited = exitOf(server);
    const signalled = Date.now();
    server.child.kill('SIGTERM');

    // Readiness turns at once: the first poll after the signal that answers at all says 503.
    let readyz: Response | null = null;
    while (!readyz || readyz.status === 200) {
      readyz = await fetch(`${opsUrl}/readyz`);
      if (readyz.status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toEqual({ status: 'stopping' });
    expect(Date.now() - signalled).toBeLessThan(DRAIN_MS);

    // During the drain the API still serves, new connections too, and says it closes each one.
    const fresh = await apiCall(server.apiBaseUrl, key, '/ping');
    expect(fresh.status).toBe(200);
    keptAlive.send(get('/ping', key));
    const last = await keptAlive.answer();
    expect(last.status).toBe(200);
    expect(last.headers.connection).toBe('close');
    await keptAlive.closedByServer(); // an orderly FIN: 'end', no ECONNRESET
    expect(keptAlive.error).toBeNull();

    // After the drain nothing new is accepted, but the request in flight gets its answer.
    await refusesConnections(server.url, DRAIN_MS + TIMEOUT_MS);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(DRAIN_MS - 100);
    inFlight.send(body.slice(10));
    const created = await inFlight.answer();
    expect(created.status, created.body).toBe(201);
    expect(created.headers.connection).toBe('close');
    await inFlight.closedByServer();
    expect(inFlight.error).toBeNull();
    const customerId = JSON.parse(created.body).data.id as number;

    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - signalled).toBeLessThan(DRAIN_MS + TIMEOUT_MS);
    expect(server.stderr()).toContain('"msg":"stopped"');

    // Nothing was lost: the next start (the embedded database's lock was released) has the customer.
    const next = await start({ SHUTDOWN_DRAIN_MS: '0' });
    const read = await apiCall(next.apiBaseUrl, key, `/customers/${customerId}`);
    expect(read.status).toBe(200);
    expect(read.body.data.name).toBe('Cliente a meio do encerramento');
    expect(await next.stop()).toBe(0);
  });

  it('SIGINT drains as well; a second signal exits at once with status 1', async () => {
    const server = await start({ SHUTDOWN_DRAIN_MS: '20000' });
    const opsUrl = (server.ready as { ops_url: string }).ops_url;
    const exited = exitOf(server);
    const signalled = Date.now();
    server.child.kill('SIGINT');
    for (let readyz = await fetch(`${opsUrl}/readyz`); readyz.status === 200; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      readyz = await fetch(`${opsUrl}/readyz`);
    }
    expect((await apiCall(server.apiBaseUrl, key, '/ping')).status).toBe(200); // draining, still serving
    server.child.kill('SIGINT');
    const { code, at } = await exited;
    expect(code).toBe(1);
    expect(at - signalled).toBeLessThan(15_000);
    expect(server.stderr()).toContain('second signal');
  });
});
