// The suite's own convention (vitest.config.ts): a file named `*.unit.test.ts` uses no test
// storage and runs once; every other file uses it and runs on PGlite and on PostgreSQL. A file in
// the wrong group either runs twice for nothing or silently skips a storage.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesUnder } from './helpers/files.js';

const TEST = fileURLToPath(new URL('.', import.meta.url));

/** What starts one of the service's own processes (test/helpers/cli.ts, server-process.ts, ...). */
const STARTS_PROCESS =
  /\b(startServe|startServerProcess|runCli|cliJson|startTill|connectStdio|startHttpMcp|spawn)\(/;

/** What a file uses when it needs the storage of its project (a fresh database, a server on it). */
const USES_STORAGE =
  /helpers\/(database|context|client-server|server-process|rate-limit)\.js'|createCliStorage|testStorage\(|TEST_STORAGE/;

describe('test files', () => {
  // Left out: this file (its pattern names the helpers), the partner kit and the deployment's
  // tests, which run with their own configurations (npm run test:clients, npm run test:deploy).
  const files = filesUnder(TEST, '.test.ts')
    .filter(
      (file) =>
        file !== fileURLToPath(import.meta.url) && !/^(clients\/kit|deploy)\//.test(relative(TEST, file)),
    )
    .map((file) => ({
      name: relative(TEST, file),
      unit: file.endsWith('.unit.test.ts'),
      process: file.endsWith('.process.test.ts'),
      usesStorage: USES_STORAGE.test(readFileSync(file, 'utf8')),
      startsProcess: STARTS_PROCESS.test(readFileSync(file, 'utf8')),
    }));

  it('are found in both groups', () => {
    expect(files.filter((file) => file.unit).length).toBeGreaterThan(10);
    expect(files.filter((file) => !file.unit).length).toBeGreaterThan(30);
  });

  it('named *.unit.test.ts use no test storage; every other one does', () => {
    expect(files.filter((file) => file.unit && file.usesStorage).map((file) => file.name)).toEqual([]);
    expect(files.filter((file) => !file.unit && !file.usesStorage).map((file) => file.name)).toEqual([]);
  });

  it('a file that starts the service as a process is named *.process.test.ts (npm run test:processes)', () => {
    expect(files.filter((file) => file.process).length).toBeGreaterThan(10);
    expect(
      files
        // The console's browser tests have a command of their own (npm run test:console).
        .filter(
          (file) =>
            !file.unit && !file.process && file.startsProcess && !file.name.startsWith('console/browser/'),
        )
        .map((file) => file.name),
    ).toEqual([]);
    expect(files.filter((file) => file.process && !file.usesStorage).map((file) => file.name)).toEqual([]);
  });
});
