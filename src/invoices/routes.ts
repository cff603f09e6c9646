import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, notFound } from '../errors.js';
import { runIdempotentWrite } from '../http/idempotency.js';
import { pageRequest, paginationOf } from '../http/list-query.js';
import { IdParams, parsePathId } from '../http/path-id.js';
import { authOf } from '../http/types.js';
import { findInvoice, listInvoices } from './repository.js';
import { InvoiceCreateBody, InvoiceListQuery, InvoiceListResponse, InvoiceResponse } from './schemas.js';
import { createDraftInvoice, invoiceBodyProblems } from './service.js';

export const invoiceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const timeZone = app.config.timeZone;

  app.get(
    '/invoices',
    {
      config: { scope: 'invoices:read' },
      schema: {
        tags: ['invoices'],
        querystring: InvoiceListQuery,
        response: { 200: InvoiceListResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { companyId } = authOf(request);
      const page = pageRequest(request.query);
      const { data, total } = await listInvoices(app.db, companyId, request.query, page, timeZone);
      return { data, pagination: paginationOf(total, data.length, page) };
    },
  );

  app.get(
    '/invoices/:id',
    {
      config: { scope: 'invoices:read' },
      schema: {
        tags: ['invoices'],
        params: IdParams,
        response: { 200: InvoiceResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { companyId } = authOf(request);
      const invoice = await findInvoice(app.db, companyId, parsePathId(request.params.id), timeZone);
      if (!invoice) throw notFound();
      return { data: invoice };
    },
  );

  // Always a draft (contract section 3): no fiscal number, no stock movement, no accounting entry.
  app.post(
    '/invoices',
    {
      config: { scope: 'invoices:write', bodyRules: invoiceBodyProblems },
      attachValidation: true,
      schema: {
        tags: ['invoices'],
        body: InvoiceCreateBody,
        response: { 201: InvoiceResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const { companyId, apiKeyId } = authOf(request);
      return runIdempotentWrite(app, request, reply, async (tx) => {
        const { id } = await createDraftInvoice(tx, companyId, request.body, { apiKeyId });
        // Read back exactly as GET /invoices/{id} does, so both bodies are the same bytes.
        const invoice = await findInvoice(tx, companyId, id, timeZone);
        if (!invoice) throw new Error(`invoice ${id} vanished inside its own transaction`);
        return { status: 201, body: { data: invoice } };
      });
    },
  );
};
