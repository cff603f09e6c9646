// Drift check: the client's types generated from openapi.json (clients/typescript/src/generated)
// must be what openapi-typescript makes of the openapi.json committed now. When this fails, run
// `npm run generate -w @invoicing/partner-api` and commit the result.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, generateTypes } from '../../clients/typescript/scripts/generate-types.js';

describe('TypeScript client: generated types', () => {
  it('match openapi.json (regenerated in memory)', async () => {
    const committed = await readFile(GENERATED_FILE, 'utf8');
    const fresh = await generateTypes();
    expect(committed === fresh, 'run: npm run generate -w @invoicing/partner-api').toBe(true);
  });
});
