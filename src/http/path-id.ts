import { Type } from 'typebox';
import { notFound } from '../errors.js';
import { MAX_INT32 } from '../values.js';

/** A path `{id}` is text; anything but a positive 32-bit integer is simply not found. */
export function parsePathId(raw: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw notFound();
  const id = Number(raw);
  if (id > MAX_INT32) throw notFound();
  return id;
}

/** Path parameters of the single-resource routes: the id is text in the interface. */
export const IdParams = Type.Object({
  id: Type.String({ description: 'Id do recurso; mal formado, inexistente ou de outra empresa: 404.' }),
});
