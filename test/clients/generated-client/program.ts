// A partner's program on a client generated from openapi.json by outside tools (openapi-typescript
// for the types, openapi-fetch for the calls), as the guide shows it: three routes, no casts. The
// envelope and the generic 5xx body are told apart by `statusCode`, which only the generic body
// has and which is its status; a 4xx is then decided by `error.code`. Type-checked (strict) and run
// by test/clients/generated-client.test.ts; `./schema.js` is generated there.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Schemas = components['schemas'];
/** Whatever an operation can fail with: the envelope (4xx) or the generic body (500, 503). */
type Failure =
  | Schemas['Error']
  | Schemas['ValidationError']
  | Schemas['InternalError']
  | Schemas['ServiceUnavailable'];

export type Outcome =
  | { kind: 'refused'; code: string; fields: string[] }
  | { kind: 'missing'; code: string }
  | { kind: 'retry-later'; status: 503; afterSeconds: number }
  | { kind: 'failed'; status: 500; requestId: string | null };

export function explain(failure: Failure, response: Response): Outcome {
  if ('statusCode' in failure) {
    // 5xx: the generic body, by its status.
    switch (failure.statusCode) {
      case 503:
        return {
          kind: 'retry-later',
          status: 503,
          afterSeconds: Number(response.headers.get('Retry-After') ?? '2'),
        };
      case 500:
        return { kind: 'failed', status: 500, requestId: response.headers.get('X-Request-Id') };
    }
  }
  // 4xx: the envelope; decide by its code.
  switch (failure.error.code) {
    case 'validation_failed':
      return { kind: 'refused', code: failure.error.code, fields: Object.keys(failure.error.errors ?? {}) };
    case 'resource_not_found':
      return { kind: 'missing', code: failure.error.code };
    default:
      return { kind: 'refused', code: failure.error.code, fields: [] };
  }
}

export interface Report {
  company: string;
  created: number;
  refused: Outcome;
  missing: Outcome;
}

export async function run(baseUrl: string, apiKey: string, runId: string): Promise<Report> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });

  const ping = await client.GET('/ping');
  if (ping.error) throw new Error(JSON.stringify(explain(ping.error, ping.response)));

  const created = await client.POST('/customers', {
    params: { header: { 'Idempotency-Key': `generated-client-${runId}-1` } },
    body: { name: 'Cliente Gerado, Lda', email: `gerado-${runId}@example.co.mz` },
  });
  if (created.error) throw new Error(JSON.stringify(explain(created.error, created.response)));

  const invalid = await client.POST('/customers', {
    params: { header: { 'Idempotency-Key': `generated-client-${runId}-2` } },
    body: { name: 'Sem E-mail Válido', email: 'isto-não-é-um-email' },
  });
  if (!invalid.error) throw new Error('an invalid email was accepted');

  const lost = await client.GET('/customers/{id}', { params: { path: { id: '999999999' } } });
  if (!lost.error) throw new Error('a missing customer was found');

  return {
    company: ping.data.data.tenant_name,
    created: created.data.data.id,
    refused: explain(invalid.error, invalid.response),
    missing: explain(lost.error, lost.response),
  };
}
