// Which tools a key gets. Decided once per session from the key's own answer to GET /ping:
// - a read tool is listed when the key has its read scope;
// - a write tool only when ALL of: the server was started with --allow-writes, the key is live
//   (a test key never writes), and the key has the tool's write scope.
// A key that may not call /ping (no customers:read) gets every read tool and no write tool: its
// scopes are unknown, and the API still refuses what the key may not do.
import type { Ping } from '@invoicing/partner-api';
import { READ_TOOLS } from './read-tools.js';
import type { Access, ToolSpec } from './tool.js';
import { WRITE_TOOLS } from './write-tools.js';

export interface Grant {
  tools: ToolSpec[];
  access: Access;
}

export function grantFor(identity: Ping | null, allowWrites: boolean): Grant {
  const scopes = identity ? new Set(identity.scopes) : null;
  const reads = READ_TOOLS.filter((tool) => tool.scope === null || scopes === null || scopes.has(tool.scope));
  const writable = WRITE_TOOLS.filter((tool) => scopes?.has(tool.scope!) ?? false);
  const enabled = allowWrites && identity?.mode === 'live' ? writable : [];
  return {
    tools: [...reads, ...enabled],
    access: {
      writeTools: enabled.map((tool) => tool.name),
      writesNote: writesNote(identity, allowWrites, writable),
    },
  };
}

function writesNote(identity: Ping | null, allowWrites: boolean, writable: ToolSpec[]): string {
  if (identity === null) return 'Read only: the key may not call /ping, so its scopes are unknown.';
  if (identity.mode === 'test') return 'Read only: this is a test key (svc_sk_test_), which never writes.';
  if (writable.length === 0)
    return 'Read only: the key has none of customers:write, products:write, invoices:write.';
  if (!allowWrites)
    return 'Read only: the server was started without --allow-writes (the key itself could write).';
  return `Writes enabled by --allow-writes for the key's scopes: ${writable.map((tool) => tool.name).join(', ')}. Invoices are only ever created as drafts that a person issues.`;
}
