// Routes of /products (contract section 4): reads with products:read, writes with products:write
// through the idempotency layer. The pipeline (src/http/pipeline.ts) has checked everything before
// any handler here runs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, notFound } from '../errors.js';
import { runIdempotentWrite } from '../http/idempotency.js';
import { pageRequest } from '../http/list-query.js';
import { IdParams } from '../http/path-id.js';
import { contextOf, resourceIdOf } from '../http/request-state.js';
import { findProduct, listProducts } from './repository.js';
import { ProductBody, ProductListQuery, ProductListResponse, ProductResponse } from './schemas.js';
import { createProduct, isOwnProduct, productBodyProblems, updateProduct } from './service.js';

export const productRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/products',
    {
      config: { scope: 'products:read' },
      schema: {
        operationId: 'listProducts',
        summary: 'Listar produtos',
        description:
          'Os produtos da empresa, por páginas. Sem `sort`, os mais recentes primeiro (`created_at` desc).',
        tags: ['products'],
        querystring: ProductListQuery,
        response: { 200: ProductListResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    (request) => listProducts(contextOf(request), request.query, pageRequest(request.query)),
  );

  app.get(
    '/products/:id',
    {
      config: { scope: 'products:read' },
      schema: {
        operationId: 'getProduct',
        summary: 'Obter um produto',
        description:
          'Um id mal formado, inexistente ou de outra empresa responde o mesmo `404 resource_not_found`.',
        tags: ['products'],
        params: IdParams,
        response: { 200: ProductResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const product = await findProduct(contextOf(request), resourceIdOf(request));
      if (!product) throw notFound();
      return { data: product };
    },
  );

  app.post(
    '/products',
    {
      config: { scope: 'products:write', bodyRules: productBodyProblems },
      schema: {
        operationId: 'createProduct',
        summary: 'Criar um produto',
        description:
          '`product_code` é gerado pelo serviço (sequência por tipo). `stock` começa em 0 para `INVENTORY` e é `null` para `NON_INVENTORY`. O produto entra na sincronização do ponto de venda.',
        tags: ['products'],
        body: ProductBody,
        response: { 201: ProductResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    (request, reply) =>
      runIdempotentWrite(request, reply, async (context) => ({
        status: 201,
        body: { data: await createProduct(context, request.body) },
      })),
  );

  app.put(
    '/products/:id',
    {
      config: { scope: 'products:write', writableId: isOwnProduct, bodyRules: productBodyProblems },
      schema: {
        operationId: 'updateProduct',
        summary: 'Substituir um produto',
        description:
          'O mesmo corpo do POST: `name`, `type`, `inventory` e `price` continuam obrigatórios; um campo opcional omitido mantém o valor e `null` apaga-o.',
        tags: ['products'],
        params: IdParams,
        body: ProductBody,
        response: { 200: ProductResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    (request, reply) =>
      runIdempotentWrite(request, reply, async (context) => {
        const product = await updateProduct(context, resourceIdOf(request), request.body);
        if (!product) throw notFound();
        return { status: 200, body: { data: product } };
      }),
  );
};
