// Spans of the embedded PGlite's statements (PostgreSQL's are the pg instrumentation's): one client
// span per `query` or `exec` made inside a traced piece of work (a request, a webhook attempt),
// with the statement's text and never its values (they travel apart, as parameters). Work outside
// a span (the request log's batches, the webhook worker's polling) makes none, as with pg.
import { context, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

const TRACED_METHODS = new Set(['query', 'exec']);

/** `SELECT`, `INSERT`, ... (the statement's first word), or `statement`. */
function operationOf(text: string): string {
  const word = /^\s*(?:\/\*.*?\*\/\s*)*([A-Za-z]+)/s.exec(text)?.[1];
  return word ? word.toUpperCase() : 'statement';
}

/** `client` whose statements are spans of the active trace (a PGlite or one of its transactions). */
export function traceStatements<T extends object>(client: T, tracer: Tracer): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || !TRACED_METHODS.has(property)) {
        return value;
      }
      return (...args: unknown[]) => {
        const active = context.active();
        if (!trace.getSpan(active)) return value.apply(target, args);
        const text = typeof args[0] === 'string' ? args[0] : '';
        const operation = operationOf(text);
        const span = tracer.startSpan(
          operation,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              'db.system.name': 'postgresql',
              'db.operation.name': operation,
              'db.query.text': text,
              'db.namespace': 'pglite',
            },
          },
          active,
        );
        return context.with(trace.setSpan(active, span), () =>
          (value.apply(target, args) as Promise<unknown>).then(
            (result) => {
              span.end();
              return result;
            },
            (error: unknown) => {
              span.setStatus({ code: SpanStatusCode.ERROR });
              span.end();
              throw error;
            },
          ),
        );
      };
    },
  });
}
