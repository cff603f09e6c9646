import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, notFound } from '../errors.js';
import { pageRequest, paginationOf } from '../http/list-query.js';
import { parsePathId } from '../http/path-id.js';
import { authOf } from '../http/types.js';
import { findCustomer, listCustomers, toCustomerResource } from './repository.js';
import { CustomerListQuery, CustomerListResponse, CustomerResponse, IdParams } from './schemas.js';

export const customerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const timeZone = app.config.timeZone;

  app.get(
    '/customers',
    {
      config: { scope: 'customers:read' },
      schema: {
        tags: ['customers'],
        querystring: CustomerListQuery,
        response: { 200: CustomerListResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { companyId } = authOf(request);
      const page = pageRequest(request.query);
      const { rows, total } = await listCustomers(app.db, companyId, request.query, page, timeZone);
      return {
        data: rows.map((row) => toCustomerResource(row, timeZone)),
        pagination: paginationOf(total, rows.length, page),
      };
    },
  );

  app.get(
    '/customers/:id',
    {
      config: { scope: 'customers:read' },
      schema: {
        tags: ['customers'],
        params: IdParams,
        response: { 200: CustomerResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { companyId } = authOf(request);
      const row = await findCustomer(app.db, companyId, parsePathId(request.params.id));
      if (!row) throw notFound();
      return { data: toCustomerResource(row, timeZone) };
    },
  );
};
