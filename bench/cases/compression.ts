// Bytes on the wire: a page of 100 invoices as sent plain, gzip and brotli (the body bytes
// received, before decoding), checked to decode to the same JSON, and the time to get each one
// whole (one request at a time, median of the samples). A single customer (under the threshold)
// must come back uncompressed whatever is asked.
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { summary } from '../../scripts/lib/stats.js';
import { READ_GOALS } from '../read-goals.js';
import { fmt, fmtRange } from '../report.js';
import { API_PREFIX, type BenchContext, bearer } from './context.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

interface RawAnswer {
  status: number;
  encoding: string | undefined;
  bytes: Buffer;
  ms: number;
}

function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(url, { headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          encoding: response.headers['content-encoding'],
          bytes: Buffer.concat(chunks),
          ms: performance.now() - started,
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

const DECODE: Record<string, (bytes: Buffer) => Buffer> = {
  identity: (bytes) => bytes,
  gzip: gunzipSync,
  br: brotliDecompressSync,
};

export async function runCompression(context: BenchContext): Promise<void> {
  const url = `${context.api.url}${API_PREFIX}/invoices?per_page=100`;
  const authorization = bearer(context.readKey);
  try {
    const sizes: Record<string, number> = {};
    let plainText = '';
    for (const encoding of ['identity', 'gzip', 'br']) {
      const headers = { authorization, 'accept-encoding': encoding };
      const times: number[] = [];
      let answer: RawAnswer | undefined;
      for (let i = 0; i <= context.options.samples; i++) {
        answer = await rawGet(url, headers);
        if (answer.status !== 200) throw new Error(`GET /invoices answered ${answer.status}`);
        if (i > 0) times.push(answer.ms);
      }
      const received = answer!;
      const sent = received.encoding ?? 'identity';
      if (sent !== encoding) throw new Error(`asked for ${encoding}, got ${sent}`);
      const text = DECODE[encoding]!(received.bytes).toString('utf8');
      if (encoding === 'identity') plainText = text;
      else if (JSON.parse(text).data.length !== JSON.parse(plainText).data.length) {
        throw new Error(`the ${encoding} page decodes to another page`);
      }
      sizes[encoding] = received.bytes.length;
      const stats = summary(times);
      const ratio = sizes.identity! / received.bytes.length;
      const judged = encoding !== 'identity';
      context.report.add({
        group: 'compression',
        case: `GET /invoices per_page 100, Accept-Encoding: ${encoding}`,
        metric: 'bytes; median ms (min–max)',
        api: `${received.bytes.length.toLocaleString('en-US')} B; ${fmtRange(stats)} ms`,
        bare: '-',
        ratio: judged ? `${ratio.toFixed(1)}x smaller` : `${fmt(stats.median)} ms`,
        goal: judged ? `≥ ${READ_GOALS.compressedPageRatio}x smaller` : '-',
        pass: judged ? ratio >= READ_GOALS.compressedPageRatio : null,
        details: { bytes: received.bytes.length, samplesMs: times },
      });
    }
    const ids = (JSON.parse(plainText) as { data: { customer: { id: number } | null }[] }).data;
    const customerId = ids.find((invoice) => invoice.customer)?.customer?.id;
    if (customerId !== undefined) {
      const single = await rawGet(`${context.api.url}${API_PREFIX}/customers/${customerId}`, {
        authorization,
        'accept-encoding': 'gzip, br',
      });
      context.report.add({
        group: 'compression',
        case: 'GET /customers/{id} asking gzip, br (under the 1 KB threshold)',
        metric: 'bytes',
        api: `${single.bytes.length} B, ${single.encoding ?? 'identity'}`,
        bare: '-',
        ratio: single.encoding ?? 'identity',
        goal: 'identity',
        pass: single.status === 200 && single.encoding === undefined,
      });
    }
  } finally {
    agent.destroy();
  }
}
