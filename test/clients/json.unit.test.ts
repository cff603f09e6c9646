// The client's body encoder: JSON.stringify's output, except that decimal strings at money paths
// are written as number literals digit for digit (never through a float).
import { describe, expect, it } from 'vitest';
import { DECIMAL_FIELDS, encodeJson } from '../../clients/typescript/src/json.js';

describe('TypeScript client: body encoding', () => {
  it('is JSON.stringify for bodies without money', () => {
    const body = {
      name: 'Água "Fresca"\n',
      type: 'company',
      email: null,
      skipped: undefined,
      list: [1, 'a', null],
    };
    expect(encodeJson(body, DECIMAL_FIELDS.none)).toBe(JSON.stringify(body));
    expect(encodeJson({ price: '12.50' }, DECIMAL_FIELDS.none)).toBe('{"price":"12.50"}');
  });

  it('writes decimal strings at money paths as the number literal itself', () => {
    expect(
      encodeJson({ price: '90071992547409.93', pos_price: '0.10', name: '5.00' }, DECIMAL_FIELDS.product),
    ).toBe('{"price":90071992547409.93,"pos_price":0.10,"name":"5.00"}');
    // A float would have changed these digits.
    expect(JSON.stringify(Number('90071992547409.93'))).not.toBe('90071992547409.93');
    expect(
      encodeJson(
        { items: [{ price: '1.10', discount: 5 }, { price: '7' }], notes: '3.00' },
        DECIMAL_FIELDS.invoice,
      ),
    ).toBe('{"items":[{"price":1.10,"discount":5},{"price":7}],"notes":"3.00"}');
    expect(JSON.parse(encodeJson({ price: '-0.5' }, DECIMAL_FIELDS.product))).toEqual({ price: -0.5 });
  });

  it('sends anything that is not a plain decimal as a string, so the JSON stays valid', () => {
    for (const text of ['12,50', '1e3', '007.5', '.5', '5.', ' 5', '', 'NaN', '1_000']) {
      const encoded = encodeJson({ price: text }, DECIMAL_FIELDS.product);
      expect(JSON.parse(encoded), text).toEqual({ price: text });
    }
  });

  it('refuses numbers JSON cannot carry', () => {
    expect(() => encodeJson({ quantity: Number.NaN }, DECIMAL_FIELDS.none)).toThrow(TypeError);
    expect(() => encodeJson({ quantity: Number.POSITIVE_INFINITY }, DECIMAL_FIELDS.none)).toThrow(/quantity/);
  });
});
