import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of /products: filled in by the resource's own work.
export const productRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
