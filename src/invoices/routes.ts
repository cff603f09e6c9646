// Routes of /invoices (contract section 4): reads, and the creation of drafts. The pipeline
// (src/http/pipeline.ts) has checked everything before any handler here runs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, notFound } from '../errors.js';
import { runIdempotentWrite } from '../http/idempotency.js';
import { pageRequest } from '../http/list-query.js';
import { IdParams } from '../http/path-id.js';
import { contextOf, resourceIdOf } from '../http/request-state.js';
import { findInvoice, listInvoices } from './repository.js';
import { InvoiceCreateBody, InvoiceListQuery, InvoiceListResponse, InvoiceResponse } from './schemas.js';
import { invoiceBodyProblems, writeDraftInvoice } from './service.js';

export const invoiceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/invoices',
    {
      config: { scope: 'invoices:read' },
      schema: {
        operationId: 'listInvoices',
        summary: 'Listar facturas',
        description:
          'As facturas da empresa, sem linhas (`items`), por páginas. Sem `sort`, por `invoice_date` desc. `date_from` e `date_to` são inclusivos, sobre `invoice_date`.',
        tags: ['invoices'],
        querystring: InvoiceListQuery,
        response: { 200: InvoiceListResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    (request) => listInvoices(contextOf(request), request.query, pageRequest(request.query)),
  );

  app.get(
    '/invoices/:id',
    {
      config: { scope: 'invoices:read' },
      schema: {
        operationId: 'getInvoice',
        summary: 'Obter uma factura',
        description: 'A factura com as suas linhas (`items`).',
        tags: ['invoices'],
        params: IdParams,
        response: { 200: InvoiceResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const invoice = await findInvoice(contextOf(request), resourceIdOf(request));
      if (!invoice) throw notFound();
      return { data: invoice };
    },
  );

  // Always a draft (contract section 3): no fiscal number, no stock movement, no accounting entry.
  app.post(
    '/invoices',
    {
      config: { scope: 'invoices:write', bodyRules: invoiceBodyProblems },
      schema: {
        operationId: 'createInvoice',
        summary: 'Criar um rascunho de factura',
        description:
          'Cria sempre um rascunho (`status` = `draft`, código `DRAFT-` e 8 caracteres): não usa numeração fiscal nem movimenta stock. Cada linha leva `product_id`, `quantity` e `price`; `discount` é uma percentagem. Um `customer_id` inexistente ou de outra empresa responde `404`. A resposta é igual à de `GET /invoices/{id}`.',
        'x-error-codes': ['resource_not_found'],
        tags: ['invoices'],
        body: InvoiceCreateBody,
        response: { 201: InvoiceResponse, '4xx': ErrorEnvelopeSchema },
      },
    },
    (request, reply) =>
      runIdempotentWrite(request, reply, async (context) => {
        // The body passed the route's schema; the transaction rolls back whatever fails. The
        // answer is built from what the inserts returned: the same bytes as a later GET.
        const invoice = await writeDraftInvoice(context, request.body);
        return { status: 201, body: { data: invoice } };
      }),
  );
};
