// Builds the app on a throw-away in-memory database just to read its route schemas.
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { runMigrations } from './db/migrate.js';

export async function generateOpenApiDocument(): Promise<Record<string, unknown>> {
  const database = await openDatabase({ kind: 'pglite', dataDir: null });
  await runMigrations(database);
  const app = await buildApp({ config: loadConfig({}), database, logger: false });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await database.close();
  }
}

export function serializeDocument(document: Record<string, unknown>): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
