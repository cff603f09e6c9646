// The lists as data (src/lists/declaration.ts) and the one rule for their totals
// (src/lists/total.ts): which source a total counted now is read from follows from the filters
// a query sets and the columns of the counters tables alone. That every total equals count(*) is
// test/lists/total.test.ts; that a remembered total is used at the same version,
// test/lists/memory.test.ts.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { customerList } from '../../src/customers/repository.js';
import { invoiceCounts, invoices } from '../../src/db/schema.js';
import { invoiceList } from '../../src/invoices/repository.js';
import { declareList, equalTo } from '../../src/lists/declaration.js';
import { totalSourceOf } from '../../src/lists/total.js';
import { receiptList } from '../../src/payments/repository.js';
import { PaymentListQuery } from '../../src/payments/schemas.js';
import { productList } from '../../src/products/repository.js';

const SINCE = '2026-03-01';

describe('the source of a total counted now', () => {
  it.each([
    [{}, 'customer_counts'],
    [{ type: 'company' }, 'customer_counts'],
    [{ updated_since: SINCE }, 'customer_counts'],
    [{ type: 'company', updated_since: SINCE }, 'customer_counts'],
    [{ search: 'a' }, 'count(*)'],
    [{ search: 'a', type: 'company', updated_since: SINCE }, 'count(*)'],
    // An empty search sets no filter.
    [{ search: '' }, 'customer_counts'],
  ])('customers %o: %s', (query, source) => {
    expect(totalSourceOf(customerList, query)).toBe(source);
  });

  it.each([
    [{}, 'product_counts'],
    [{ type: 'GOODS', is_for_sale: 'false', updated_since: SINCE }, 'product_counts'],
    [{ search: 'farinha' }, 'count(*)'],
    [{ search: 'farinha', type: 'GOODS' }, 'count(*)'],
  ])('products %o: %s', (query, source) => {
    expect(totalSourceOf(productList, query)).toBe(source);
  });

  it.each([
    [{}, 'invoice_counts'],
    [{ status: 'paid', date_from: SINCE, date_to: SINCE }, 'invoice_counts'],
    // The per-day counters of changes answer updated_since, with the status.
    [{ updated_since: SINCE }, 'invoice_update_counts'],
    [{ status: 'unpaid', updated_since: SINCE }, 'invoice_update_counts'],
    // No counters table has both the invoice date and the day of change, nor the customer.
    [{ date_from: SINCE, updated_since: SINCE }, 'count(*)'],
    [{ customer_id: 7 }, 'count(*)'],
    [{ customer_id: 7, status: 'paid' }, 'count(*)'],
  ])('invoices %o: %s', (query, source) => {
    expect(totalSourceOf(invoiceList, query)).toBe(source);
  });

  it.each([
    [{}, 'receipt_counts'],
    [{ date_from: SINCE, date_to: SINCE }, 'receipt_counts'],
    [{ invoice_id: 7 }, 'count(*)'],
    [{ invoice_id: 7, date_to: SINCE }, 'count(*)'],
  ])('payments %o: %s', (query, source) => {
    expect(totalSourceOf(receiptList, query)).toBe(source);
  });
});

describe('a list declaration', () => {
  const declaration = {
    resource: 'test-receipts',
    query: PaymentListQuery,
    table: invoices,
    id: invoices.id,
    visible: (companyId: number) => eq(invoices.companyId, companyId),
    sorts: {
      payment_date: invoices.invoiceDate,
      amount: invoices.grandTotal,
      created_at: invoices.createdAt,
      updated_at: invoices.updatedAt,
    },
    defaultOrder: { sort: 'payment_date', order: 'desc' },
    counters: [
      { table: invoiceCounts, visible: (companyId: number) => eq(invoiceCounts.companyId, companyId) },
    ],
    shortListsByFilter: true,
    pageIdsFirst: true,
    select: () => {
      throw new Error('not read');
    },
    resources: () => [],
  } as const;

  it('fails at start when a filter names a column its table does not have', () => {
    expect(() =>
      declareList({
        ...declaration,
        filters: {
          invoice_id: equalTo('invoiceId'),
          date_from: equalTo('dueDate'),
          date_to: equalTo('dueDate'),
        },
      }),
    ).toThrow('test-receipts: no column invoiceId for invoice_id');
  });

  it('answers by the counters exactly the filters whose column a counters table has', () => {
    const list = declareList({
      ...declaration,
      filters: {
        invoice_id: equalTo('status'),
        date_from: equalTo('invoiceDate'),
        date_to: equalTo('dueDate'),
      },
    });
    expect(totalSourceOf(list, { invoice_id: 'paid', date_from: SINCE })).toBe('invoice_counts');
    expect(totalSourceOf(list, { date_to: SINCE })).toBe('count(*)');
  });

  it('needs a filter for every query parameter of its schema (a type error otherwise)', () => {
    const incomplete = () =>
      declareList({
        ...declaration,
        // @ts-expect-error date_to has no filter
        filters: { invoice_id: equalTo('status'), date_from: equalTo('dueDate') },
      });
    expect(incomplete).not.toThrow();
  });
});
