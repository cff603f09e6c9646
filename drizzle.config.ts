import { defineConfig } from 'drizzle-kit';

// Generates the SQL migrations in ./drizzle from src/db/schema.ts; the same files serve
// PostgreSQL and the embedded PGlite.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
