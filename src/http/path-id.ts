import { notFound } from '../errors.js';

const MAX_ID = 2_147_483_647;

/** A path `{id}` is text; anything but a positive 32-bit integer is simply not found. */
export function parsePathId(raw: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw notFound();
  const id = Number(raw);
  if (id > MAX_ID) throw notFound();
  return id;
}
