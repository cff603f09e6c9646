// The database timeouts come from the environment with sensible defaults, and a bad value stops
// the start with a message naming the variable.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('database timeouts in the configuration', () => {
  it('default to values fit for production', () => {
    expect(loadConfig({}).databaseTimeouts).toEqual({
      statementTimeoutMs: 30_000,
      lockTimeoutMs: 5_000,
      idleInTransactionTimeoutMs: 30_000,
      poolAcquireTimeoutMs: 5_000,
    });
    // The database ends a frozen holder's transaction before the takeover timeout runs out.
    const config = loadConfig({});
    expect(config.databaseTimeouts.idleInTransactionTimeoutMs).toBeLessThan(
      config.idempotencyLockTimeoutSeconds * 1000,
    );
  });

  it('are read from DB_* variables', () => {
    const config = loadConfig({
      DB_STATEMENT_TIMEOUT_MS: '1000',
      DB_LOCK_TIMEOUT_MS: '200',
      DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '3000',
      DB_POOL_ACQUIRE_TIMEOUT_MS: '400',
    });
    expect(config.databaseTimeouts).toEqual({
      statementTimeoutMs: 1000,
      lockTimeoutMs: 200,
      idleInTransactionTimeoutMs: 3000,
      poolAcquireTimeoutMs: 400,
    });
  });

  it.each(['0', '-5', '1.5', 'soon'])('refuse %s', (value) => {
    expect(() => loadConfig({ DB_LOCK_TIMEOUT_MS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ DB_LOCK_TIMEOUT_MS: value })).toThrow(/DB_LOCK_TIMEOUT_MS/);
  });
});
