// Routes of /customers (contract section 4). The pipeline (src/http/pipeline.ts) has checked the
// key, scope, idempotency, path id, query and body before any handler here runs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, notFound } from '../errors.js';
import { runIdempotentWrite } from '../http/idempotency.js';
import { pageRequest } from '../http/list-query.js';
import { IdParams } from '../http/path-id.js';
import { contextOf, resourceIdOf } from '../http/request-state.js';
import { findCustomer, listCustomers } from './repository.js';
import {
  CustomerCreateBody,
  CustomerListQuery,
  CustomerListResponse,
  CustomerResponse,
  CustomerUpdateBody,
} from './schemas.js';
import { createCustomer, customerBodyProblems, isOwnCustomer, updateCustomer } from './service.js';

export const customerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/customers',
    {
      config: { scope: 'customers:read' },
      schema: {
        operationId: 'listCustomers',
        tags: ['customers'],
        querystring: CustomerListQuery,
        response: { 200: CustomerListResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    (request) => listCustomers(contextOf(request), request.query, pageRequest(request.query)),
  );

  app.get(
    '/customers/:id',
    {
      config: { scope: 'customers:read' },
      schema: {
        operationId: 'getCustomer',
        tags: ['customers'],
        params: IdParams,
        response: { 200: CustomerResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const customer = await findCustomer(contextOf(request), resourceIdOf(request));
      if (!customer) throw notFound();
      return { data: customer };
    },
  );

  app.post(
    '/customers',
    {
      config: { scope: 'customers:write', bodyRules: customerBodyProblems },
      schema: {
        operationId: 'createCustomer',
        tags: ['customers'],
        body: CustomerCreateBody,
        response: { 201: CustomerResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    (request, reply) =>
      runIdempotentWrite(request, reply, async (context) => ({
        status: 201,
        body: { data: await createCustomer(context, request.body) },
      })),
  );

  app.put(
    '/customers/:id',
    {
      config: { scope: 'customers:write', writableId: isOwnCustomer, bodyRules: customerBodyProblems },
      schema: {
        operationId: 'updateCustomer',
        tags: ['customers'],
        params: IdParams,
        body: CustomerUpdateBody,
        response: { 200: CustomerResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    (request, reply) =>
      runIdempotentWrite(request, reply, async (context) => {
        const customer = await updateCustomer(context, resourceIdOf(request), request.body);
        if (!customer) throw notFound();
        return { status: 200, body: { data: customer } };
      }),
  );
};
