// Step 10, first part: the path `{id}`. It is text in the interface; anything but a positive
// 32-bit integer, or an id the company may not write (PUT), is simply not found. That includes
// ids the router itself would refuse: one that is not valid percent-encoding (`/customers/%FF`,
// see `decodableUrl`) and one of any length (app.ts lifts the router's limit of 100 characters).
// Both reach their route, so they pass every earlier step in order and get the same 404.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../errors.js';
import { idFromText } from '../values.js';
import { contextOf, stateOf } from './request-state.js';

/** Longest path parameter the router accepts: any, as the path-id step refuses what is not an id. */
export const MAX_PARAM_LENGTH = Number.MAX_SAFE_INTEGER;

/**
 * The URL the router sees (Fastify's `rewriteUrl`): as sent, unless its path is not valid
 * percent-encoding (`%FF`, a lone `%`), which the router would answer with its own 400 before
 * any of our steps. Then every `%` of the path is taken literally (`%25`), so a malformed id
 * reaches its route as the text sent and the query string is left as it is.
 */
export function decodableUrl(url: string): string {
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  if (!path.includes('%')) return url;
  try {
    decodeURI(path);
    return url;
  } catch {
    return `${path.replace(/%/g, '%25')}${end === -1 ? '' : url.slice(end)}`;
  }
}

export function parsePathId(raw: string): number {
  const id = idFromText(raw);
  if (id === null) throw notFound();
  return id;
}

/** Synchronous, unless the route asks whether the id is one the company may write (a query). */
export function checkPathId(request: FastifyRequest): undefined | Promise<void> {
  const raw = (request.params as { id?: string } | undefined)?.id;
  if (raw === undefined) return undefined;
  const id = parsePathId(raw);
  const writableId = request.routeOptions.config.writableId;
  if (!writableId) {
    stateOf(request).resourceId = id;
    return undefined;
  }
  return writableId(contextOf(request), id).then((writable) => {
    if (!writable) throw notFound();
    stateOf(request).resourceId = id;
  });
}

/** Path parameters of the single-resource routes: the id is text in the interface. */
export const IdParams = Type.Object({
  id: Type.String({ description: 'Id do recurso; mal formado, inexistente ou de outra empresa: 404.' }),
});
