// The TypeScript, PHP and Python clients keep the 15 error codes as lists of their own (their packages ship
// without the server): they must name exactly the server's codes, in the same order.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES as TYPESCRIPT_CODES } from '../../clients/typescript/src/errors.js';
import { ERROR_CODES } from '../../src/errors.js';

const source = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The quoted words between the list's opening line and its closing bracket. */
function listAfter(text: string, opening: RegExp, closing: string): string[] {
  const start = text.search(opening);
  expect(start, `${opening} not found`).toBeGreaterThanOrEqual(0);
  const body = text.slice(start, text.indexOf(closing, start));
  return [...body.matchAll(/['"]([a-z_]+)['"]/g)].map((match) => match[1]!);
}

describe('the clients name exactly the server error codes', () => {
  it('TypeScript: ERROR_CODES', () => {
    expect([...TYPESCRIPT_CODES]).toEqual([...ERROR_CODES]);
  });

  it('PHP: PartnerApiException::ERROR_CODES', () => {
    const codes = listAfter(source('clients/php/src/PartnerApiException.php'), /ERROR_CODES\s*=\s*\[/, '];');
    expect(codes).toEqual([...ERROR_CODES]);
  });

  it('Python: errors.ERROR_CODES', () => {
    const codes = listAfter(
      source('clients/python/invoicing_partner_api/errors.py'),
      /ERROR_CODES[^=]*=\s*\(/,
      ')',
    );
    expect(codes).toEqual([...ERROR_CODES]);
  });
});
