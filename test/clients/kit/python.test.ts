// The Python client (clients/python) through its own unittest suites: tests/unit (no server) and
// tests/server against the harness (the real server on this project's storage, proxies, a server
// with low limits, a webhook receiver). Python 3 from the machine (Debian's python3 in CI);
// PYTHON_BIN picks another interpreter.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientHarness, childEnv, startClientHarness } from '../../helpers/client-harness.js';
import { run } from './run.js';

const PACKAGE = fileURLToPath(new URL('../../../clients/python/', import.meta.url));
const PYTHON = process.env.PYTHON_BIN ?? 'python3';

describe('Python client', () => {
  let harness: ClientHarness;

  beforeAll(async () => {
    harness = await startClientHarness();
  });
  afterAll(() => harness?.close());

  it('unit tests: body encoding, NUIT, webhook signatures, pacing', async () => {
    const result = await run(PYTHON, ['-m', 'unittest', 'discover', '-v', '-s', 'tests/unit', '-t', '.'], {
      cwd: PACKAGE,
      env: childEnv(harness, { PYTHONDONTWRITEBYTECODE: '1' }),
    });
    expect(result.code, result.output).toBe(0);
  });

  it('against the real server: every method, retries, 429, pacing, money, webhooks, the README example', async () => {
    const result = await run(PYTHON, ['-m', 'unittest', 'discover', '-v', '-s', 'tests/server', '-t', '.'], {
      cwd: PACKAGE,
      env: childEnv(harness, { PYTHONDONTWRITEBYTECODE: '1' }),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^OK/m);
  });
});
