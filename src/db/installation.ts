// The installation's id: one random id per database, created by its migrations. What must not be
// shared by two installations that share an outside service (the rate-limit counters in Redis)
// is namespaced by it.
import type { Database } from './client.js';
import { installation } from './schema.js';

export async function installationId(db: Database): Promise<string> {
  const [row] = await db.select({ id: installation.id }).from(installation).limit(1);
  if (!row) throw new Error('the installation row is missing: run the migrations');
  return row.id;
}

/** Namespace of this installation's rate-limit counters in Redis, unless REDIS_KEY_PREFIX says another. */
export async function redisKeyPrefix(db: Database, configured: string | undefined): Promise<string> {
  return configured ?? `partner-api:${await installationId(db)}:rl`;
}
