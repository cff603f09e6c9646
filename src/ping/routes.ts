import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { countVisibleCustomers } from '../customers/repository.js';
import { ErrorEnvelopeSchema } from '../errors.js';
import { callerOf, contextOf } from '../http/request-state.js';
import { StringEnum } from '../http/schema-helpers.js';

const PingResponse = Type.Object(
  {
    data: Type.Object(
      {
        tenant_id: Type.Integer(),
        tenant_name: Type.String(),
        mode: StringEnum(['live', 'test'] as const),
        scopes: Type.Array(Type.String()),
        customers_visible: Type.Integer(),
        request_id: Type.String(),
      },
      {
        $id: 'Ping',
        additionalProperties: false,
        description: 'Quem é a chave: empresa, modo e permissões.',
        examples: [
          {
            tenant_id: 1,
            tenant_name: 'Mercearia Baía de Maputo, Lda',
            mode: 'live',
            scopes: ['customers:read', 'customers:write', 'products:read', 'invoices:read'],
            customers_visible: 7,
            request_id: 'req_55590546db1ba720f6772c4d',
          },
        ],
      },
    ),
  },
  { description: 'A chave e a sua empresa.' },
);

export const pingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/ping',
    {
      config: { scope: 'customers:read' },
      schema: {
        operationId: 'getPing',
        summary: 'Verificar a chave',
        description:
          'A empresa da chave, o modo (`live` ou `test`), as permissões e quantos clientes a chave vê. Um bom primeiro pedido de uma integração. Exige `customers:read`.',
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
