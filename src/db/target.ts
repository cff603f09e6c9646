import type { Config } from '../config.js';
import type { StorageTarget } from './client.js';

/** PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite in DATA_DIR. */
export function storageTargetOf(config: Config, poolSize?: number): StorageTarget {
  return config.databaseUrl
    ? {
        kind: 'postgres',
        url: config.databaseUrl,
        timeouts: config.databaseTimeouts,
        ...(poolSize ? { poolSize } : {}),
      }
    : { kind: 'pglite', dataDir: config.dataDir };
}
