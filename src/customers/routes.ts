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
        summary: 'Listar clientes',
        description:
          'Os clientes da empresa e os clientes globais, por páginas. Sem `sort`, os mais recentes primeiro (`created_at` desc). Para sincronizar, use `updated_since` (inclusivo) com `sort=updated_at&order=asc`.',
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
        summary: 'Obter um cliente',
        description:
          'Um id mal formado, inexistente ou de outra empresa responde o mesmo `404 resource_not_found`.',
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
        summary: 'Criar um cliente',
        description:
          'Cria um cliente da empresa da chave. `type` por omissão `individual`. O e-mail é único entre os clientes da empresa, sem distinguir maiúsculas: repetido dá `422` em `email`.',
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
        summary: 'Alterar um cliente',
        description:
          'Só os campos enviados mudam; `null` apaga um campo opcional. Um cliente global ou de outra empresa responde `404`.',
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
