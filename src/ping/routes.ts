import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { countVisibleCustomers } from '../customers/repository.js';
import { ErrorEnvelopeSchema } from '../errors.js';
import { StringEnum } from '../http/schema-helpers.js';
import { authOf } from '../http/types.js';

const PingResponse = Type.Object({
  data: Type.Object(
    {
      tenant_id: Type.Integer(),
      tenant_name: Type.String(),
      mode: StringEnum(['live', 'test'] as const),
      scopes: Type.Array(Type.String()),
      customers_visible: Type.Integer(),
      request_id: Type.String(),
    },
    { $id: 'PingResult', additionalProperties: false },
  ),
});

export const pingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/ping',
    {
      config: { scope: 'customers:read' },
      schema: { tags: ['ping'], response: { 200: PingResponse, '4xx': ErrorEnvelopeSchema } },
    },
    async (request) => {
      const auth = authOf(request);
      return {
        data: {
          tenant_id: auth.companyId,
          tenant_name: auth.companyName,
          mode: auth.mode,
          scopes: auth.scopes,
          customers_visible: await countVisibleCustomers(app.db, auth.companyId),
          request_id: String(request.id),
        },
      };
    },
  );
};
