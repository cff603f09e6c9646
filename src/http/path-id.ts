// Step 10, first part: the path `{id}`. It is text in the interface; anything but a positive
// 32-bit integer, or an id the company may not write (PUT), is simply not found.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../errors.js';
import { MAX_INT32 } from '../values.js';
import { contextOf } from './request-state.js';

export function parsePathId(raw: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw notFound();
  const id = Number(raw);
  if (id > MAX_INT32) throw notFound();
  return id;
}

export async function checkPathId(request: FastifyRequest): Promise<void> {
  const raw = (request.params as { id?: string } | undefined)?.id;
  if (raw === undefined) return;
  const id = parsePathId(raw);
  const writableId = request.routeOptions.config.writableId;
  if (writableId && !(await writableId(contextOf(request), id))) throw notFound();
  request.resourceId = id;
}

/** Path parameters of the single-resource routes: the id is text in the interface. */
export const IdParams = Type.Object({
  id: Type.String({ description: 'Id do recurso; mal formado, inexistente ou de outra empresa: 404.' }),
});
