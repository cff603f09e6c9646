// The 14 routes of the contract (section 4) as one table: method, path, scope, operationId, and
// a valid body for the writes. Tests that must hold on every route iterate over it
// (test/http/routes.test.ts), and a test checks that the app serves exactly these routes.
import type { App } from '../../src/app.js';
import type { Database } from '../../src/db/client.js';
import type { Scope } from '../../src/keys/scopes.js';
import { issueInvoice, recordReceipt } from '../../src/operations/invoices.js';
import type { Tenant } from './context.js';
import { asOperator } from './context.js';
import { createCustomer, createDraft, createProduct } from './invoices.js';

/** Ids a route's path and body can refer to: rows of the company whose key is used. */
export interface RouteFixtures {
  customerId: number;
  productId: number;
  invoiceId: number;
  paymentId: number;
}

export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT';
  /** Relative to /api/v1/partner; `{id}` is the resource's id. */
  path: string;
  scope: Scope;
  operationId: string;
  /** The id that fills `{id}`, among the fixtures. */
  id?: keyof RouteFixtures;
  /** A body the route accepts (writes only). */
  body?: (fixtures: RouteFixtures) => unknown;
}

const productBody = () => ({
  name: 'Farinha de milho 10 kg',
  type: 'GOODS',
  inventory: 'INVENTORY',
  price: 520,
});

export const ROUTES: readonly RouteCase[] = [
  { method: 'GET', path: '/ping', scope: 'customers:read', operationId: 'getPing' },
  { method: 'GET', path: '/customers', scope: 'customers:read', operationId: 'listCustomers' },
  {
    method: 'GET',
    path: '/customers/{id}',
    scope: 'customers:read',
    operationId: 'getCustomer',
    id: 'customerId',
  },
  {
    method: 'POST',
    path: '/customers',
    scope: 'customers:write',
    operationId: 'createCustomer',
    body: () => ({ name: 'Celso Matsinhe', nuit: '123456789' }),
  },
  {
    method: 'PUT',
    path: '/customers/{id}',
    scope: 'customers:write',
    operationId: 'updateCustomer',
    id: 'customerId',
    body: () => ({ phone: '+258 84 123 4567' }),
  },
  { method: 'GET', path: '/products', scope: 'products:read', operationId: 'listProducts' },
  {
    method: 'GET',
    path: '/products/{id}',
    scope: 'products:read',
    operationId: 'getProduct',
    id: 'productId',
  },
  {
    method: 'POST',
    path: '/products',
    scope: 'products:write',
    operationId: 'createProduct',
    body: productBody,
  },
  {
    method: 'PUT',
    path: '/products/{id}',
    scope: 'products:write',
    operationId: 'updateProduct',
    id: 'productId',
    body: productBody,
  },
  { method: 'GET', path: '/invoices', scope: 'invoices:read', operationId: 'listInvoices' },
  {
    method: 'GET',
    path: '/invoices/{id}',
    scope: 'invoices:read',
    operationId: 'getInvoice',
    id: 'invoiceId',
  },
  {
    method: 'POST',
    path: '/invoices',
    scope: 'invoices:write',
    operationId: 'createInvoice',
    body: (fixtures) => ({
      customer_id: fixtures.customerId,
      invoice_date: '2026-11-20',
      items: [{ product_id: fixtures.productId, quantity: 2, price: 520 }],
    }),
  },
  { method: 'GET', path: '/payments', scope: 'payments:read', operationId: 'listPayments' },
  {
    method: 'GET',
    path: '/payments/{id}',
    scope: 'payments:read',
    operationId: 'getPayment',
    id: 'paymentId',
  },
];

export const WRITE_ROUTES = ROUTES.filter((route) => route.method !== 'GET');
export const ID_ROUTES = ROUTES.filter((route) => route.id !== undefined);

/** The route's path with `{id}` filled in. */
export function pathOf(route: RouteCase, id?: number): string {
  return id === undefined ? route.path : route.path.replace('{id}', String(id));
}

export function routeName(route: RouteCase): string {
  return `${route.method} ${route.path}`;
}

/**
 * One row of each resource for a company, made the way users make them: customer, product and
 * draft through the API, then the draft issued and paid through the operator's operations.
 */
export async function createRouteFixtures(app: App, db: Database, tenant: Tenant): Promise<RouteFixtures> {
  const customerId = await createCustomer(app, tenant, 'Lurdes Cossa');
  const productId = await createProduct(app, db, tenant, { name: 'Entrega em Maputo', price: 250 });
  const draft = await createDraft(app, tenant, {
    customer_id: customerId,
    invoice_date: '2026-11-20',
    items: [{ product_id: productId, quantity: 1, price: 250 }],
  });
  await issueInvoice(asOperator(db), draft.id);
  const receipt = await recordReceipt(asOperator(db), {
    invoiceId: draft.id,
    amount: '100.00',
    date: '2026-11-21',
  });
  return { customerId, productId, invoiceId: draft.id, paymentId: receipt.id };
}
