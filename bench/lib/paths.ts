// Where the harness lives and writes. Everything it creates stays under bench/ (results/ and
// .data/ are git-ignored).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const benchDir = fileURLToPath(new URL('../', import.meta.url));
export const resultsDir = `${benchDir}results`;
export const dataDir = `${benchDir}.data`;

export function ensureDir(path: string): string {
  mkdirSync(path, { recursive: true });
  return path;
}
