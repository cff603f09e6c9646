// Compressed answers: a page of 100 invoices is about 65 KB of JSON, and many partners sit behind
// slow or metered links. Brotli or gzip, as the request's Accept-Encoding prefers (brotli first on
// a tie); nothing else, and nothing for a client that asks for neither. Bodies under
// COMPRESSION_THRESHOLD_BYTES go as they are (a single resource, an error envelope): compressing
// them costs more time than the bytes it saves. Request bodies are never decompressed: a request
// is read as sent (src/http/body.ts).
import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** The smallest body that is compressed, in bytes. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;
/** Brotli quality 4 and gzip level 6: most of the saving for a small part of the time of the maximum. */
export const BROTLI_QUALITY = 4;
export const GZIP_LEVEL = 6;

/**
 * Registers compression for the routes registered after it. Every answer of those routes carries
 * `Vary: accept-encoding` (also one too small to compress, or asked without it): a shared cache
 * must not give a stored answer to a client that asked for another encoding.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    brotliOptions: {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      },
    },
    zlibOptions: { level: GZIP_LEVEL },
    globalDecompression: false,
  });
  app.addHook('onRequest', (_request, reply, done) => {
    // Lower case: the plugin adds the same name to a compressed answer unless it is there already.
    reply.header('Vary', 'accept-encoding');
    done();
  });
}
