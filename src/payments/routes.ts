// Routes of /payments: read-only (contract section 1), so there is no POST, PUT or DELETE here.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, notFound } from '../errors.js';
import { pageRequest } from '../http/list-query.js';
import { IdParams } from '../http/path-id.js';
import { contextOf, resourceIdOf } from '../http/request-state.js';
import { findPayment, listPayments } from './repository.js';
import { PaymentListQuery, PaymentListResponse, PaymentResponse } from './schemas.js';

export const paymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments',
    {
      config: { scope: 'payments:read' },
      schema: {
        operationId: 'listPayments',
        summary: 'Listar recibos',
        description:
          'Os recibos ligados a facturas da empresa, por páginas. Sem `sort`, por `payment_date` desc. `date_from` e `date_to` são inclusivos, sobre `payment_date`.',
        tags: ['payments'],
        querystring: PaymentListQuery,
        response: { 200: PaymentListResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    (request) => listPayments(contextOf(request), request.query, pageRequest(request.query)),
  );

  app.get(
    '/payments/:id',
    {
      config: { scope: 'payments:read' },
      schema: {
        operationId: 'getPayment',
        summary: 'Obter um recibo',
        description:
          'Um id mal formado, inexistente ou de outra empresa responde o mesmo `404 resource_not_found`.',
        tags: ['payments'],
        params: IdParams,
        response: { 200: PaymentResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const payment = await findPayment(contextOf(request), resourceIdOf(request));
      if (!payment) throw notFound();
      return { data: payment };
    },
  );
};
