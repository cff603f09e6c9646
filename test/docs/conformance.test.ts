// The conformance check itself (test/helpers/conformance.ts): it accepts answers that match
// openapi.json and names what differs in those that do not.
import { describe, expect, it } from 'vitest';
import { conformanceProblems, type ObservedResponse } from '../helpers/conformance.js';

const customer = {
  id: 7,
  name: 'Transportes Chaimite, Lda',
  type: 'company',
  email: null,
  phone: '+258 23 32 1234',
  contact_number: null,
  nuit: '401223344',
  address: 'Rua Major Serpa Pinto 55, Beira',
  created_at: '2026-11-22T09:30:00.000+02:00',
  updated_at: '2026-11-22T09:30:00.000+02:00',
};

const ok: ObservedResponse = {
  method: 'GET',
  url: '/api/v1/partner/customers/7',
  status: 200,
  headers: {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': 'req_0123456789abcdef01234567',
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '58',
    'ratelimit-policy': '"key-minute";q=60;w=60, "key-day";q=5000;w=86400, "company-minute";q=120;w=60',
    ratelimit: '"key-minute";r=58;t=42',
  },
  body: JSON.stringify({ data: customer }),
};

const notFound = (code: string, headers: Record<string, string> = {}): ObservedResponse => ({
  ...ok,
  status: 404,
  headers: { ...ok.headers, ...headers },
  body: JSON.stringify({
    error: {
      code,
      message: 'm',
      hint: 'h',
      doc_url: `http://127.0.0.1:3001/errors#${code}`,
      request_id: 'req_1',
    },
  }),
});

describe('conformance check', () => {
  it('accepts a documented answer, and ignores routes that are not operations', () => {
    expect(conformanceProblems(ok)).toEqual([]);
    expect(conformanceProblems(notFound('resource_not_found'))).toEqual([]);
    expect(conformanceProblems({ ...ok, method: 'DELETE', status: 404, body: '{}' })).toEqual([]);
  });

  it('names a body that does not match the schema', () => {
    const body = JSON.stringify({ data: { ...customer, id: '7', extra: true } });
    const problems = conformanceProblems({ ...ok, body });
    expect(problems.join('\n')).toMatch(/getCustomer 200: body does not match the schema/);
    expect(problems.join('\n')).toMatch(/must be integer/);
  });

  it('names an undocumented status, an undocumented code and header problems', () => {
    expect(conformanceProblems({ ...ok, status: 409 })).toEqual([
      'getCustomer 409: status 409 is not documented for getCustomer',
    ]);
    expect(conformanceProblems(notFound('idempotency_key_reuse')).join('\n')).toMatch(
      /error code idempotency_key_reuse is not documented/,
    );
    const { 'x-request-id': _, ...withoutId } = ok.headers;
    expect(conformanceProblems({ ...ok, headers: withoutId })).toEqual([
      'getCustomer 200: required header X-Request-Id is missing',
    ]);
    expect(
      conformanceProblems({ ...ok, headers: { ...ok.headers, 'x-ratelimit-remaining': 'many' } }),
    ).toHaveLength(1);
    expect(conformanceProblems({ ...ok, headers: { ...ok.headers, 'retry-after': '2' } })).toEqual([
      'getCustomer 200: header retry-after is sent but not documented for this response',
    ]);
  });
});
