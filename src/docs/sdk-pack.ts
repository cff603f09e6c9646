// The packages of /sdk/ in a checkout: packed at the first request of /sdk/ when missing or older
// than the clients' sources (so `npm ci && npm start` serves them, with no build step that would
// slow every install or need Python), by scripts/pack-clients.ts in a child process. One pack at a
// time per process; concurrent requests wait for the same one, never longer than PACK_TIMEOUT_MS.
// A runtime tree cannot pack (no sources, no build tools): it serves what deploy/build-runtime.sh
// shipped.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { canPack, PACK_SCRIPT, readSdkStamp, SDK_DIST, sdkFingerprint } from './sdk-files.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PACK_TIMEOUT_MS = 300_000;

let packing: Promise<string | null> | null = null;

async function packIfStale(): Promise<string | null> {
  if (!canPack()) return null;
  if ((await readSdkStamp(SDK_DIST)) === (await sdkFingerprint())) return null;
  const tsx = join(ROOT, 'node_modules/.bin/tsx');
  if (!existsSync(tsx))
    return 'Os pacotes precisam das dependências de desenvolvimento (npm ci) · Packing the clients needs the development dependencies (npm ci)';
  try {
    await exec(tsx, [PACK_SCRIPT], { cwd: ROOT, timeout: PACK_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
    return null;
  } catch (error) {
    const detail = ((error as { stderr?: string }).stderr || (error as Error).message)
      .trim()
      .split('\n')
      .pop();
    return `Falhou a preparação dos pacotes (npm run clients:pack mostra o erro) · Packing the clients failed (npm run clients:pack shows the error): ${detail}`;
  }
}

/** Makes clients/dist current: null when it is, otherwise why not (a failed pack is retried next time). */
export function prepareSdk(): Promise<string | null> {
  if (!packing) {
    packing = packIfStale();
    // Checked once a process when it succeeds; a failure is retried at the next request.
    packing.then((problem) => {
      if (problem) packing = null;
    });
  }
  return packing;
}
