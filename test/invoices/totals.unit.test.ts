import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invoiceTotals, lineTotals } from '../../src/invoices/totals.js';
import { cents, oracleInvoice, oracleLine, scaled } from '../helpers/totals-oracle.js';

describe('invoice totals: a line', () => {
  it('1.5 x 33.33 = 49.995 -> 50.00, no tax: null rate and 0.00 tax', () => {
    expect(lineTotals({ quantity: 1.5, price: 33.33 })).toEqual({
      subtotal: '50.00',
      discount: '0.00',
      net: '50.00',
      taxRate: null,
      taxAmount: '0.00',
      taxIncluded: false,
      total: '50.00',
    });
  });

  it('a 16% tax on a net of 10.05 is 1.608 -> 1.61', () => {
    expect(lineTotals({ quantity: 1, price: 10.05, taxRate: '16.0000' })).toEqual({
      subtotal: '10.05',
      discount: '0.00',
      net: '10.05',
      taxRate: '16',
      taxAmount: '1.61',
      taxIncluded: false,
      total: '11.66',
    });
  });

  it('rounds the discount and the tax each on its own, half away from zero', () => {
    // 2.5 x 4.10 = 10.25; 10% = 1.025 -> 1.03; net 9.22; 17% = 1.5674 -> 1.57
    expect(lineTotals({ quantity: 2.5, price: 4.1, discountPercentage: 10, taxRate: 17 })).toMatchObject({
      subtotal: '10.25',
      discount: '1.03',
      net: '9.22',
      taxAmount: '1.57',
      total: '10.79',
    });
    // 0.5 x 0.25 = 0.125 -> 0.13; 17% = 0.0221 -> 0.02
    expect(lineTotals({ quantity: 0.5, price: 0.25, taxRate: 17 })).toMatchObject({
      subtotal: '0.13',
      net: '0.13',
      taxAmount: '0.02',
      total: '0.15',
    });
    // 12.5% of 0.20 = 0.025 -> 0.03; net 0.17; 5% of 0.17 = 0.0085 -> 0.01
    expect(lineTotals({ quantity: 1, price: 0.2, discountPercentage: 12.5, taxRate: 5 })).toMatchObject({
      discount: '0.03',
      net: '0.17',
      taxAmount: '0.01',
      total: '0.18',
    });
  });

  it('a 100% discount leaves nothing; a 0% tax is still a tax', () => {
    expect(lineTotals({ quantity: 3, price: 19.99, discountPercentage: 100, taxRate: 16 })).toMatchObject({
      subtotal: '59.97',
      discount: '59.97',
      net: '0.00',
      taxAmount: '0.00',
      total: '0.00',
    });
    expect(lineTotals({ quantity: 2, price: 5, taxRate: 0 })).toMatchObject({
      taxRate: '0',
      taxAmount: '0.00',
    });
  });

  it('keeps every digit of large quantities and prices before rounding', () => {
    const line = lineTotals({ quantity: '123456789.1234', price: '98765432.19' });
    // exact: 1234567891234 * 9876543219 / 10^6, rounded half up to cents
    const exact = 1234567891234n * 9876543219n; // scaled by 10^6
    const cents = (exact + 5000n) / 10000n;
    const expected = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
    expect(line.subtotal).toBe(expected);
    expect(line.total).toBe(expected);
  });
});

describe('invoice totals: the invoice', () => {
  it('sums the lines; vat_base counts only lines with a tax; nothing paid', () => {
    const lines = [
      lineTotals({ quantity: 3, price: 1250, discountPercentage: 10, taxRate: 16 }), // 3750 - 375 + 540
      lineTotals({ quantity: 1.5, price: 33.33 }), // 50.00, no tax
      lineTotals({ quantity: 1, price: 10.05, taxRate: 16 }), // 10.05 + 1.61
      lineTotals({ quantity: 2.5, price: 4.1, discountPercentage: 10, taxRate: 17 }), // 10.25 - 1.03 + 1.57
      lineTotals({ quantity: 0.5, price: 0.25, taxRate: 17 }), // 0.13 + 0.02
    ];
    expect(invoiceTotals(lines)).toEqual({
      subtotal: '3820.43',
      discount: '376.03',
      globalDiscountAmount: '0.00',
      vatBase: '3394.40',
      tax: '543.20',
      grandTotal: '3987.60',
      paidAmount: '0.00',
      remainingAmount: '3987.60',
    });
  });

  it('no taxed line: vat_base 0.00', () => {
    expect(invoiceTotals([lineTotals({ quantity: 1, price: 7 })])).toMatchObject({
      vatBase: '0.00',
      tax: '0.00',
      grandTotal: '7.00',
    });
  });
});

describe('invoice totals: exact to the cent, whatever the numbers', () => {
  // The independent whole-number oracle of test/helpers/totals-oracle.ts.
  const line = fc.record({
    quantity: fc.bigInt({ min: 1n, max: 10n ** 10n }), // x 10^4
    price: fc.bigInt({ min: 0n, max: 10n ** 9n }), // cents
    discount: fc.option(fc.bigInt({ min: 0n, max: 100n * 10n ** 4n })), // x 10^4
    taxRate: fc.option(fc.constantFrom(0n, 50000n, 160000n, 170000n, 123456n)), // x 10^4
  });

  it('lines and invoice as exact decimals, each step rounded half away from zero', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 20 }), (lines) => {
        const expected = lines.map(oracleLine);
        const computed = lines.map((l) =>
          lineTotals({
            quantity: scaled(l.quantity, 4),
            price: scaled(l.price, 2),
            discountPercentage: l.discount === null ? null : scaled(l.discount, 4),
            taxRate: l.taxRate === null ? null : scaled(l.taxRate, 4).toString(),
          }),
        );
        computed.forEach((totals, i) => {
          const want = expected[i]!;
          expect(totals).toMatchObject({
            subtotal: cents(want.subtotal),
            discount: cents(want.discount),
            net: cents(want.net),
            taxAmount: cents(want.tax),
            total: cents(want.total),
          });
        });
        const invoice = oracleInvoice(expected);
        expect(invoiceTotals(computed)).toEqual({
          subtotal: invoice.subtotal,
          discount: invoice.discount,
          globalDiscountAmount: invoice.global_discount_amount,
          vatBase: invoice.vat_base,
          tax: invoice.tax,
          grandTotal: invoice.grand_total,
          paidAmount: invoice.paid_amount,
          remainingAmount: invoice.remaining_amount,
        });
      }),
      { numRuns: 300 },
    );
  });
});
