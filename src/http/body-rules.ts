// Write routes validate their body with `attachValidation`, so a schema failure lands here
// instead of failing at once: the route's own rules (`config.bodyRules`) run on the same body and
// the single 422 lists every problem, schema and own rules alike. A body that passes its schema
// goes on to the handler, whose service applies the same own rules inside its transaction.
import type { FastifyInstance } from 'fastify';
import { addFieldError, validationFailed } from '../errors.js';
import { parsePathId } from './path-id.js';
import { authOf } from './types.js';
import { bodyFieldErrors } from './validation.js';

export function registerBodyRules(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    const failure = request.validationError as
      | (Error & { validation?: unknown[]; validationContext?: string })
      | undefined;
    if (!failure) return;
    if (!failure.validation || failure.validationContext !== 'body') throw failure;
    const errors = bodyFieldErrors(failure.validation as never);
    const bodyRules = request.routeOptions.config.bodyRules;
    if (bodyRules) {
      const params = request.params as { id?: string };
      const id = params.id === undefined ? null : parsePathId(params.id);
      const own = await bodyRules(app.db, authOf(request).companyId, request.body, id);
      // A field the schema already refuses keeps just that message.
      for (const [path, messages] of Object.entries(own)) {
        if (errors[path]) continue;
        for (const message of messages) addFieldError(errors, path, message);
      }
    }
    throw validationFailed(errors);
  });
}
