import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of /invoices: filled in by the resource's own work.
export const invoiceRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
