import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/http/request-id.js';

describe('newRequestId', () => {
  it('gives req_ and 24 hex digits, never the same twice across refills of its pool', () => {
    const ids = Array.from({ length: 2000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('starts with the second it was made, so that ids sort (and are indexed) roughly by time', () => {
    const before = Math.floor(Date.now() / 1000);
    const id = newRequestId();
    const after = Math.floor(Date.now() / 1000);
    const second = Number.parseInt(id.slice(4, 12), 16);
    expect(second).toBeGreaterThanOrEqual(before);
    expect(second).toBeLessThanOrEqual(after);
  });
});
