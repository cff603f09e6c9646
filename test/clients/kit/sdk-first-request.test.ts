// `npm start` in a checkout serves the client packages at /sdk/ of its docs port with no build step:
// the first request of /sdk/ packs them (src/docs/sdk-pack.ts), and the page's install lines, in
// Portuguese and in English, name this server. The stamp of an earlier pack is removed first, so
// the pack happens here whatever ran before. In the `packages` project: packing builds the clients
// in place, one packer at a time.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK_DIST, SDK_STAMP } from '../../../src/docs/sdk-files.js';
import { type ServeProcess, startServe } from '../../helpers/cli.js';
import { migratedDataDir } from '../../helpers/database.js';
import { freePort } from '../../helpers/server-process.js';

describe('/sdk/ of a server started in a checkout', () => {
  let dir: string;
  let server: ServeProcess;
  let docsUrl: string;

  beforeAll(async () => {
    await rm(join(SDK_DIST, SDK_STAMP), { force: true });
    dir = await mkdtemp(join(tmpdir(), 'partner-sdk-'));
    const dataDir = await migratedDataDir(join(dir, 'data'));
    server = await startServe(
      { DATA_DIR: dataDir, DOCS_PORT: String(await freePort()) },
      { args: ['--demo'] },
    );
    docsUrl = (server.ready as { docs_url: string }).docs_url;
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is linked from the home page and packed at its first request, with install lines in both languages', async () => {
    expect(await (await fetch(docsUrl)).text()).toContain('href="sdk/"');
    const page = await fetch(`${docsUrl}sdk/`, { signal: AbortSignal.timeout(300_000) });
    const html = await page.text();
    expect(page.status, html).toBe(200);
    for (const lang of ['pt', 'en']) {
      const section = new RegExp(`<section lang="${lang}"[^>]*>([\\s\\S]*?)</section>`).exec(html)?.[1] ?? '';
      const lines = [...section.matchAll(/<code[^>]*data-install="[^"]*">([^<]*)<\/code>/g)].map((m) => m[1]);
      expect(lines.join('\n'), lang).toContain(`npm install -g ${docsUrl}sdk/invoicing-partner-mcp-`);
      expect(lines.join('\n'), lang).toContain('composer init');
    }
    // Every package the checksums name is served, byte for byte as its checksum says.
    const sums = (await (await fetch(`${docsUrl}sdk/SHA256SUMS`)).text()).trim().split('\n');
    expect(sums.length).toBeGreaterThanOrEqual(4);
    for (const line of sums) {
      const [sum, name] = line.split(/\s+/);
      const served = await fetch(`${docsUrl}sdk/${name}`);
      expect(served.status, name).toBe(200);
      const digest = createHash('sha256')
        .update(Buffer.from(await served.arrayBuffer()))
        .digest('hex');
      expect(digest, name).toBe(sum);
    }
    expect(await readFile(join(SDK_DIST, SDK_STAMP), 'utf8')).not.toBe('');
  }, 360_000);
});
