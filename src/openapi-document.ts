// Builds the app on a throw-away in-memory database just to read its route schemas, and makes the
// published documents of them: openapi.json (Portuguese) and openapi.en.json (English), both with
// the code samples and the webhooks (src/docs/reference.ts).
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { runMigrations } from './db/migrate.js';
import { englishReference, portugueseReference } from './docs/reference.js';

type Json = Record<string, unknown>;

/** What the route schemas say (src/openapi.ts), before the samples and webhooks. */
export async function generateRouteDocument(): Promise<Json> {
  const database = await openDatabase({ kind: 'pglite', dataDir: null });
  await runMigrations(database);
  const app = await buildApp({ config: loadConfig({}), database, logger: false });
  try {
    await app.ready();
    return app.swagger() as unknown as Json;
  } finally {
    await app.close();
    await database.close();
  }
}

/** openapi.json. */
export async function generateOpenApiDocument(): Promise<Json> {
  return portugueseReference(await generateRouteDocument());
}

/** openapi.json and openapi.en.json, from one build of the app. */
export async function generateOpenApiDocuments(): Promise<{ pt: Json; en: Json }> {
  const base = await generateRouteDocument();
  return { pt: portugueseReference(base), en: englishReference(base) };
}

export function serializeDocument(document: Json): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
