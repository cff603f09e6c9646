import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/http/request-id.js';

describe('newRequestId', () => {
  it('gives req_ and 24 hex digits, never the same twice across refills of its pool', () => {
    const ids = Array.from({ length: 2000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
