// Step 10 of decisions.md, in its order: the path id (404), then the body's readability (422).
// Query strings and body schemas are validated by Fastify right after this hook.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.js';
import { assertReadableBody } from './body.js';
import { parsePathId } from './path-id.js';
import { isWriteMethod } from './pipeline.js';
import { authOf } from './types.js';

export function registerTargetChecks(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const writableId = request.routeOptions.config.writableId;
    if (writableId) {
      const id = parsePathId((request.params as { id: string }).id);
      if (!(await writableId(app.db, authOf(request).companyId, id))) throw notFound();
    }
    if (isWriteMethod(request.method)) assertReadableBody(request);
  });
}
