// The PHP client (clients/php) through its own PHPUnit suites: unit (no server) and server against
// the harness (the real server on this project's storage, proxies, a server with low limits, a
// webhook receiver). Debian's php-cli, php-curl and phpunit (scripts/ensure-php.sh installs them);
// PHP_BIN and PHPUNIT_BIN pick others.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientHarness, childEnv, startClientHarness } from '../../helpers/client-harness.js';
import { run } from './run.js';

const PACKAGE = fileURLToPath(new URL('../../../clients/php/', import.meta.url));
const PHPUNIT = process.env.PHPUNIT_BIN ?? 'phpunit';

describe('PHP client', () => {
  let harness: ClientHarness;

  beforeAll(async () => {
    harness = await startClientHarness();
  });
  afterAll(() => harness?.close());

  it('unit tests: body encoding, NUIT, webhook signatures, pacing', async () => {
    const result = await run(PHPUNIT, ['--testsuite', 'unit'], { cwd: PACKAGE, env: childEnv(harness) });
    expect(result.code, result.output).toBe(0);
  });

  it('against the real server: every method, retries, 429, pacing, money, webhooks, the README example', async () => {
    const result = await run(PHPUNIT, ['--testsuite', 'server', '--testdox'], {
      cwd: PACKAGE,
      env: childEnv(harness),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^OK \(/m);
  });
});
