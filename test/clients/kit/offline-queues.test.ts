// The offline queues of the Python and PHP clients against the harness (test/helpers/client-harness.ts:
// `bin/invoicing serve` behind a recording proxy), on this project's storage: their own suites
// (clients/python/tests/server/offline_queue_test.py, clients/php/tests/Offline), each with a till
// process killed with SIGKILL at random points at least 20 times. The TypeScript queue's tests are
// in test/clients/offline (npm test).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientHarness, childEnv, startClientHarness } from '../../helpers/client-harness.js';
import { run } from './run.js';

const PYTHON_PACKAGE = fileURLToPath(new URL('../../../clients/python/', import.meta.url));
const PHP_PACKAGE = fileURLToPath(new URL('../../../clients/php/', import.meta.url));
const PYTHON = process.env.PYTHON_BIN ?? 'python3';
const PHPUNIT = process.env.PHPUNIT_BIN ?? 'phpunit';

describe('the offline queues of the Python and PHP clients against a real server', () => {
  let harness: ClientHarness;

  beforeAll(async () => {
    harness = await startClientHarness();
  });
  afterAll(() => harness?.close());

  it('Python: order and $local, lost answers, refusals, 24 h look-up, lock and key, 20 SIGKILLs', async () => {
    const result = await run(PYTHON, ['-m', 'unittest', '-v', 'tests.server.offline_queue_test'], {
      cwd: PYTHON_PACKAGE,
      env: childEnv(harness, { PYTHONDONTWRITEBYTECODE: '1' }),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^OK/m);
    expect(result.output).toMatch(/^Ran 8 tests/m);
    console.info(result.output.match(/^offline queue .*$/m)?.[0]);
  });

  it('PHP: order and $local, lost answers, refusals, 24 h look-up, lock and key, 20 SIGKILLs', async () => {
    const result = await run(PHPUNIT, ['--testsuite', 'offline', '--testdox'], {
      cwd: PHP_PACKAGE,
      env: childEnv(harness),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^OK \(7 tests/m);
    console.info(result.output.match(/^offline queue .*$/m)?.[0]);
  });
});
