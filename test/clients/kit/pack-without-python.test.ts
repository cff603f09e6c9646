// A checkout on a machine without Python still serves the other packages: `npm ci` never packs
// (the docs server packs at the first request of /sdk/), and the pack leaves the Python packages
// out with a note on the index instead of failing. The runtime tree asks for every package
// (--all), so there a missing python3 is an error, never a silent gap.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packClients } from '../../../scripts/pack-clients.js';

describe('client packages without python3', () => {
  let work: string;
  const saved = process.env.PYTHON_BIN;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'partner-pack-nopython-'));
    process.env.PYTHON_BIN = join(work, 'no-such-python3');
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.PYTHON_BIN;
    else process.env.PYTHON_BIN = saved;
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('packs the others, says on the index what is missing, and --all refuses', async () => {
    const out = join(work, 'sdk');
    const files = await packClients(out);
    expect(files.map((file) => file.name).sort()).toEqual([
      'invoicing-partner-api-1.0.0.tgz',
      'invoicing-partner-api-1.0.0.zip',
      'invoicing-partner-mcp-1.0.0.tgz',
    ]);
    const index = await readFile(join(out, 'index.html'), 'utf8');
    expect(index).toContain('python3 not found');
    expect(index).not.toContain('data-install="python"');
    expect(index).toContain('data-install="php"');

    await expect(packClients(join(work, 'all'), { all: true })).rejects.toThrow(/ENOENT|no-such-python3/);
    // Nothing half-built is left where the packages go.
    expect(await readdir(work)).toEqual(['sdk']);
  }, 300_000);
});
