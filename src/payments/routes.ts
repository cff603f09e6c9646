import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, notFound } from '../errors.js';
import { pageRequest, paginationOf } from '../http/list-query.js';
import { IdParams, parsePathId } from '../http/path-id.js';
import { authOf } from '../http/types.js';
import { findPayment, listPayments } from './repository.js';
import { PaymentListQuery, PaymentListResponse, PaymentResponse } from './schemas.js';

// Payments are read-only (contract section 1): there is no POST, PUT or DELETE on them.
export const paymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const timeZone = app.config.timeZone;

  app.get(
    '/payments',
    {
      config: { scope: 'payments:read' },
      schema: {
        tags: ['payments'],
        querystring: PaymentListQuery,
        response: { 200: PaymentListResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { companyId } = authOf(request);
      const page = pageRequest(request.query);
      const { data, total } = await listPayments(app.db, companyId, request.query, page, timeZone);
      return { data, pagination: paginationOf(total, data.length, page) };
    },
  );

  app.get(
    '/payments/:id',
    {
      config: { scope: 'payments:read' },
      schema: {
        tags: ['payments'],
        params: IdParams,
        response: { 200: PaymentResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { companyId } = authOf(request);
      const payment = await findPayment(app.db, companyId, parsePathId(request.params.id), timeZone);
      if (!payment) throw notFound();
      return { data: payment };
    },
  );
};
