// Shared fixtures of the product tests: products are created through the API, as partners do.

import type { Static } from 'typebox';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { ProductSchema } from '../../src/products/schemas.js';
import { api, newIdempotencyKey, type Tenant } from './context.js';

export const newKey = () => newIdempotencyKey('product-test');

/** The exact keys of a product resource (contract 2.2). */
export const PRODUCT_KEYS = [
  'categories',
  'created_at',
  'description',
  'id',
  'is_for_sale',
  'name',
  'pos_price',
  'price',
  'product_code',
  'reorder_level',
  'sku',
  'stock',
  'tax_rate',
  'tracks_inventory',
  'type',
  'unity',
  'updated_at',
  'vat_included',
].sort();

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+02:00$/;

/** A product as the API returns it: the type of the response schema itself. */
export type ProductJson = Static<typeof ProductSchema>;

export const baseBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Arroz 25kg',
  type: 'GOODS',
  inventory: 'INVENTORY',
  price: 1250,
  ...overrides,
});

/** POST /products that must succeed; returns the created resource. */
export async function postProduct(
  app: App,
  tenant: Tenant,
  body: Record<string, unknown> = baseBody(),
): Promise<ProductJson> {
  const res = await api(app, 'POST', '/products', { key: tenant.key, idempotencyKey: newKey(), body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

export async function putProduct(
  app: App,
  tenant: Tenant,
  id: number,
  body: Record<string, unknown>,
): Promise<ProductJson> {
  const res = await api(app, 'PUT', `/products/${id}`, { key: tenant.key, idempotencyKey: newKey(), body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

export async function getProduct(app: App, tenant: Tenant, id: number): Promise<ProductJson> {
  const res = await api(app, 'GET', `/products/${id}`, { key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** The error body without its request id (which differs on every request). */
export function errorWithoutRequestId(body: string): unknown {
  const parsed = JSON.parse(body) as { error: Record<string, unknown> };
  const { request_id: _requestId, ...rest } = parsed.error;
  return rest;
}
