// What the rest of the service is given when tracing is on (src/tracing/start.ts makes it; nothing
// looks it up as a global): passed from `serve` to the app, the database handle and the webhook worker.
import type { Tracer } from '@opentelemetry/api';

export interface Tracing {
  tracer: Tracer;
  /** The Fastify plugin of @fastify/otel: server spans of the API (app.ts registers it). */
  fastifyPlugin(): unknown;
  /** Sends what is left and stops (the end of `serve`). */
  shutdown(): Promise<void>;
}
