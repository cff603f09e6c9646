import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { countVisibleCustomers } from '../customers/repository.js';
import { ErrorEnvelopeSchema } from '../errors.js';
import { callerOf, contextOf } from '../http/request-state.js';
import { StringEnum } from '../http/schema-helpers.js';

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
      schema: {
        operationId: 'getPing',
        tags: ['ping'],
        response: { 200: PingResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return {
        data: {
          tenant_id: caller.companyId,
          tenant_name: caller.companyName,
          mode: caller.mode,
          scopes: caller.scopes,
          customers_visible: await countVisibleCustomers(contextOf(request)),
          request_id: String(request.id),
        },
      };
    },
  );
};
