// Routes of /products (contract section 4): reads with products:read, writes with
// products:write through the idempotency layer, all scoped to the key's company.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, notFound } from '../errors.js';
import { runIdempotentWrite } from '../http/idempotency.js';
import { pageRequest, paginationOf } from '../http/list-query.js';
import { IdParams, parsePathId } from '../http/path-id.js';
import { authOf } from '../http/types.js';
import { findProduct, listProducts, toProductResource } from './repository.js';
import { ProductBody, ProductListQuery, ProductListResponse, ProductResponse } from './schemas.js';
import { createProduct, isOwnProduct, productBodyProblems, updateProduct } from './service.js';

export const productRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const timeZone = app.config.timeZone;

  app.get(
    '/products',
    {
      config: { scope: 'products:read' },
      schema: {
        tags: ['products'],
        querystring: ProductListQuery,
        response: { 200: ProductListResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { companyId } = authOf(request);
      const page = pageRequest(request.query);
      const { rows, total } = await listProducts(app.db, companyId, request.query, page, timeZone);
      return {
        data: rows.map((row) => toProductResource(row, timeZone)),
        pagination: paginationOf(total, rows.length, page),
      };
    },
  );

  app.get(
    '/products/:id',
    {
      config: { scope: 'products:read' },
      schema: {
        tags: ['products'],
        params: IdParams,
        response: { 200: ProductResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { companyId } = authOf(request);
      const view = await findProduct(app.db, companyId, parsePathId(request.params.id));
      if (!view) throw notFound();
      return { data: toProductResource(view, timeZone) };
    },
  );

  app.post(
    '/products',
    {
      config: { scope: 'products:write', bodyRules: productBodyProblems },
      attachValidation: true,
      schema: {
        tags: ['products'],
        body: ProductBody,
        response: { 201: ProductResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const { companyId } = authOf(request);
      return runIdempotentWrite(app, request, reply, async (tx) => {
        const view = await createProduct(tx, companyId, request.body);
        return { status: 201, body: { data: toProductResource(view, timeZone) } };
      });
    },
  );

  app.put(
    '/products/:id',
    {
      config: { scope: 'products:write', writableId: isOwnProduct, bodyRules: productBodyProblems },
      attachValidation: true,
      schema: {
        tags: ['products'],
        params: IdParams,
        body: ProductBody,
        response: { 200: ProductResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const { companyId } = authOf(request);
      const id = parsePathId(request.params.id);
      return runIdempotentWrite(app, request, reply, async (tx) => {
        const view = await updateProduct(tx, companyId, id, request.body);
        if (!view) throw notFound();
        return { status: 200, body: { data: toProductResource(view, timeZone) } };
      });
    },
  );
};
