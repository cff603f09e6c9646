import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of /payments: filled in by the resource's own work.
export const paymentRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
