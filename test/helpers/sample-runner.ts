// Runs the docs' code samples (docs/samples, src/docs/samples.ts) as a partner would: each file as
// it is, in its own folder, with `sh`, `tsx`, `php` and `python3`, the address and the key of a
// real server in PARTNER_API_URL and PARTNER_API_KEY, and the example ids (EXAMPLE_IDS) replaced
// by ids that exist in that key's company. The TypeScript client is the repository's (tsconfig
// paths), the PHP client is loaded as Composer's vendor/autoload.php would, the Python client is
// on PYTHONPATH: what the clients' READMEs install.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EXAMPLE_IDS,
  type ExampleRecord,
  SAMPLE_LANGUAGES,
  type SampleLanguage,
  sampleSource,
} from '../../src/docs/samples.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const PYTHON = process.env.PYTHON_BIN ?? 'python3';
const PHP = process.env.PHP_BIN ?? 'php';

export type RecordIds = Record<ExampleRecord, number>;

export const LABELS: Record<SampleLanguage, string> = Object.fromEntries(
  SAMPLE_LANGUAGES.map((language) => [language.id, language.label]),
) as Record<SampleLanguage, string>;

/** The sample's source with the example ids replaced by real ones. */
export function withIds(source: string, ids: RecordIds): string {
  let text = source;
  for (const [record, example] of Object.entries(EXAMPLE_IDS)) {
    text = text.replace(new RegExp(`\\b${example}\\b`, 'g'), String(ids[record as ExampleRecord]));
  }
  return text;
}

/** A folder laid out as a partner's project would be for this language. */
export interface SampleFolder {
  dir: string;
  file: string;
  close(): Promise<void>;
}

export async function prepareSample(
  id: string,
  language: SampleLanguage,
  ids: RecordIds,
): Promise<SampleFolder> {
  const dir = await mkdtemp(join(tmpdir(), `sample-${id}-${language}-`));
  const file = join(dir, `${id}.${language}`);
  await writeFile(file, withIds(sampleSource(id, language), ids));
  if (language === 'ts') await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  if (language === 'php') {
    await mkdir(join(dir, 'vendor'));
    await writeFile(
      join(dir, 'vendor/autoload.php'),
      `<?php\nrequire ${JSON.stringify(join(ROOT, 'clients/php/autoload.php'))};\n`,
    );
  }
  return { dir, file, close: () => rm(dir, { recursive: true, force: true }) };
}

/** The command that runs a sample file (a web server's, for a PHP receiver on `port`). */
export function commandOf(language: SampleLanguage, file: string, port?: number): [string, string[]] {
  switch (language) {
    case 'sh':
      return ['sh', [file]];
    case 'ts':
      return [process.execPath, [TSX, '--tsconfig', join(ROOT, 'tsconfig.json'), file]];
    case 'php':
      return port === undefined ? [PHP, [file]] : [PHP, ['-S', `127.0.0.1:${port}`, file]];
    case 'py':
      return [PYTHON, [file]];
  }
}

/** The environment of a sample: no proxy of the machine in the way of 127.0.0.1. */
export function sampleEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PYTHONPATH: join(ROOT, 'clients/python'),
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONIOENCODING: 'utf-8',
    ...extra,
  };
  for (const name of ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'])
    delete env[name];
  env.NO_PROXY = '127.0.0.1,localhost';
  env.no_proxy = '127.0.0.1,localhost';
  return env;
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a sample to its end (at most `timeoutMs`). */
export function runSample(
  language: SampleLanguage,
  folder: SampleFolder,
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<Finished> {
  const [command, args] = commandOf(language, folder.file);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: folder.dir,
      env: sampleEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A sample that keeps running (a webhook receiver), listening on `port`. */
export interface RunningSample {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export async function startSample(
  language: SampleLanguage,
  folder: SampleFolder,
  port: number,
  env: Record<string, string>,
): Promise<RunningSample> {
  const [command, args] = commandOf(language, folder.file, port);
  // Its own process group, so that stopping it also stops what it started (tsx runs node).
  const child = spawn(command, args, {
    cwd: folder.dir,
    env: sampleEnv({ ...env, PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  };
  const deadline = Date.now() + 60_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the ${language} sample did not listen on ${port}: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => output, stop };
}

/** Waits until `predicate` holds (polling), or fails naming `what`. */
export async function eventually<T>(
  probe: () => Promise<T> | T,
  predicate: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (predicate(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
