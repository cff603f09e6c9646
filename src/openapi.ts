// The published OpenAPI document is generated from the very schemas that validate and
// serialize each route. @fastify/swagger only collects them: it adds no route, so the API keeps
// exactly its 14. `npm run openapi` writes openapi.json; a test keeps that file current.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from './app-constants.js';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Partner API of the invoicing service',
        version: '1.0.0',
        description:
          'Server-to-server API through which an external system reads and writes the data of one company. ' +
          'Every POST and PUT needs an Idempotency-Key header. Money is decimal text with two places.',
      },
      servers: [{ url: API_PREFIX }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'svc_sk_live_... or svc_sk_test_...' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    // A schema with an $id (Customer, Invoice, ErrorEnvelope...) is a named component.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) =>
        typeof json.$id === 'string' ? json.$id : `def-${index}`,
    },
    // Paths are documented relative to the server URL above.
    transform: ({ schema, url }) => ({
      schema,
      url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url,
    }),
  });
}
