// The published OpenAPI document comes from the route schemas and must stay current.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateOpenApiDocument, serializeDocument } from '../src/openapi-document.js';

describe('OpenAPI document', () => {
  it('describes exactly the 14 routes, and openapi.json is up to date (npm run openapi)', async () => {
    const document = await generateOpenApiDocument();
    const paths = document.paths as Record<string, Record<string, unknown>>;
    const operations = Object.entries(paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /ping',
        'GET /customers',
        'GET /customers/{id}',
        'POST /customers',
        'PUT /customers/{id}',
        'GET /products',
        'GET /products/{id}',
        'POST /products',
        'PUT /products/{id}',
        'GET /invoices',
        'GET /invoices/{id}',
        'POST /invoices',
        'GET /payments',
        'GET /payments/{id}',
      ].sort(),
    );
    const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(serializeDocument(document));
  });
});
