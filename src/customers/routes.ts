import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, notFound } from '../errors.js';
import { runIdempotentWrite } from '../http/idempotency.js';
import { pageRequest, paginationOf } from '../http/list-query.js';
import { IdParams, parsePathId } from '../http/path-id.js';
import { authOf } from '../http/types.js';
import { findCustomer, listCustomers, toCustomerResource } from './repository.js';
import {
  CustomerCreateBody,
  CustomerListQuery,
  CustomerListResponse,
  CustomerResponse,
  CustomerUpdateBody,
} from './schemas.js';
import { createCustomer, customerBodyProblems, isOwnCustomer, updateCustomer } from './service.js';

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

  app.post(
    '/customers',
    {
      config: { scope: 'customers:write', bodyRules: customerBodyProblems },
      attachValidation: true,
      schema: {
        tags: ['customers'],
        body: CustomerCreateBody,
        response: { 201: CustomerResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const { companyId } = authOf(request);
      return runIdempotentWrite(app, request, reply, async (tx) => {
        const row = await createCustomer(tx, companyId, request.body);
        return { status: 201, body: { data: toCustomerResource(row, timeZone) } };
      });
    },
  );

  app.put(
    '/customers/:id',
    {
      config: { scope: 'customers:write', writableId: isOwnCustomer, bodyRules: customerBodyProblems },
      attachValidation: true,
      schema: {
        tags: ['customers'],
        params: IdParams,
        body: CustomerUpdateBody,
        response: { 200: CustomerResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const { companyId } = authOf(request);
      const id = parsePathId(request.params.id);
      return runIdempotentWrite(app, request, reply, async (tx) => {
        const row = await updateCustomer(tx, companyId, id, request.body);
        if (!row) throw notFound();
        return { status: 200, body: { data: toCustomerResource(row, timeZone) } };
      });
    },
  );
};
