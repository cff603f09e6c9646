// src/json-numbers.ts: the body parser gives what JSON.parse gives, plus each number's own digits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepLiterals, numberText, parseJsonExact, rememberedLiteral } from '../src/json-numbers.js';

describe('parseJsonExact', () => {
  it('gives the value JSON.parse gives, for any JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(parseJsonExact(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what JSON.parse refuses', () => {
    for (const text of [
      '',
      '{',
      '{"a":1,}',
      '[1,]',
      '01',
      '1.',
      '.5',
      '+1',
      'NaN',
      "{'a':1}",
      '"\u0001"',
      '\uFEFF{}',
      '{}x',
    ]) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      expect(() => parseJsonExact(text), text).toThrow(SyntaxError);
    }
  });

  it('keeps the last of repeated keys and __proto__ as a plain key, as JSON.parse does', () => {
    expect(parseJsonExact('{"a":1,"a":2}')).toEqual({ a: 2 });
    const parsed = parseJsonExact('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("gives back each number's literal, hidden from keys and JSON", () => {
    const body = parseJsonExact(
      '{"price":99999999999999.99,"plain":12.5,"items":[{"quantity":0.30000000000000001},9007199254740993]}',
    ) as { price: number; plain: number; items: [{ quantity: number }, number] };
    expect(body.price).toBe(Number('99999999999999.99'));
    expect(numberText(body, 'price')).toBe('99999999999999.99');
    expect(numberText(body, 'plain')).toBe('12.5');
    expect(rememberedLiteral(body, 'plain')).toBeUndefined();
    expect(numberText(body.items[0], 'quantity')).toBe('0.30000000000000001');
    expect(numberText(body.items, 1)).toBe('9007199254740993');
    expect(Object.keys(body)).toEqual(['price', 'plain', 'items']);
    expect(JSON.stringify(body.items)).toBe('[{"quantity":0.3},9007199254740992]');
    // A value changed after the parse is no longer the literal's.
    body.price = 1;
    expect(numberText(body, 'price')).toBe('1');
    expect(numberText(body, 'missing')).toBeUndefined();
    expect(numberText({ price: '12' }, 'price')).toBeUndefined();
    // A copy made with keepLiterals keeps them.
    const copy = keepLiterals(body.items[0], { ...body.items[0] });
    expect(numberText(copy, 'quantity')).toBe('0.30000000000000001');
  });
});
