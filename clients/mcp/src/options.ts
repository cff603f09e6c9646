// The command line and environment of `partner-mcp`, checked before anything starts.
export const USAGE = `Usage: partner-mcp [--allow-writes] [--http PORT [--host HOST] [session limits]]

The official MCP server of the invoicing service's Partner API v1.

  (no option)      MCP over stdio, with the key in PARTNER_API_KEY
  --http PORT      MCP over Streamable HTTP at http://HOST:PORT/mcp instead; each MCP client
                   sends its own key as "Authorization: Bearer svc_sk_..." (PARTNER_API_KEY unused)
  --host HOST      address to listen on with --http (default 127.0.0.1, loopback only)
  --allow-writes   list the write tools (save_customer, save_product, create_draft_invoice) for
                   live keys that have their scopes; without it every key is read-only
  Session limits of --http (past a key's or a company's limit, that key's own oldest session is
  closed first, then its company's; one company can never fill the server):
  --max-sessions N           sessions open at once (default 200)
  --sessions-per-company N   sessions of one company, all its keys together (default 20)
  --sessions-per-key N       sessions of one key (default 5)
  --unused-session-timeout S seconds a session may stay without calling a tool (default 120)
  --idle-session-timeout S   seconds a session may stay unused once it called one (default 1800)
  --help, --version

Environment:
  PARTNER_API_URL  the API's address, ending in /api/v1/partner (required)
  PARTNER_API_KEY  the company's key, svc_sk_live_... or svc_sk_test_... (stdio only)
`;

/** The bounds of the HTTP server's sessions. */
export interface SessionLimits {
  maxSessions: number;
  sessionsPerCompany: number;
  sessionsPerKey: number;
  /** A session that has called no tool is closed this long after it opened. */
  unusedMs: number;
  /** A session that called a tool is closed after this long without a request. */
  idleMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessions: 200,
  sessionsPerCompany: 20,
  sessionsPerKey: 5,
  unusedMs: 120_000,
  idleMs: 30 * 60_000,
};

/** Each limit's flag, what it sets, and its range (seconds for the timeouts). */
const LIMIT_FLAGS: Record<string, { field: keyof SessionLimits; min: number; max: number; scale: number }> = {
  '--max-sessions': { field: 'maxSessions', min: 1, max: 100_000, scale: 1 },
  '--sessions-per-company': { field: 'sessionsPerCompany', min: 1, max: 100_000, scale: 1 },
  '--sessions-per-key': { field: 'sessionsPerKey', min: 1, max: 100_000, scale: 1 },
  '--unused-session-timeout': { field: 'unusedMs', min: 1, max: 86_400, scale: 1000 },
  '--idle-session-timeout': { field: 'idleMs', min: 1, max: 86_400, scale: 1000 },
};

export type Options =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'stdio'; baseUrl: string; apiKey: string; allowWrites: boolean }
  | {
      kind: 'http';
      baseUrl: string;
      port: number;
      host: string;
      allowWrites: boolean;
      envKeyIgnored: boolean;
      limits: SessionLimits;
    };

export class UsageError extends Error {}

export function parseOptions(argv: readonly string[], env: Record<string, string | undefined>): Options {
  let allowWrites = false;
  let port: number | null = null;
  let host: string | null = null;
  const limits: SessionLimits = { ...DEFAULT_SESSION_LIMITS };
  let limitGiven: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const limit = LIMIT_FLAGS[flag!];
    if (limit) {
      const raw = inline ?? argv[++i];
      if (
        raw === undefined ||
        !/^[0-9]{1,6}$/.test(raw) ||
        Number(raw) < limit.min ||
        Number(raw) > limit.max
      ) {
        throw new UsageError(`${flag} needs a whole number from ${limit.min} to ${limit.max}`);
      }
      limits[limit.field] = Number(raw) * limit.scale;
      limitGiven = flag!;
      continue;
    }
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    if (arg === '--version') return { kind: 'version' };
    if (arg === '--allow-writes') allowWrites = true;
    else if (arg === '--http') port = portOf(argv[++i]);
    else if (arg.startsWith('--http=')) port = portOf(arg.slice('--http='.length));
    else if (arg === '--host') host = hostOf(argv[++i]);
    else if (arg.startsWith('--host=')) host = hostOf(arg.slice('--host='.length));
    else throw new UsageError(`unknown argument: ${arg}`);
  }
  if (host !== null && port === null) throw new UsageError('--host needs --http PORT');
  if (limitGiven !== null && port === null) throw new UsageError(`${limitGiven} needs --http PORT`);

  const baseUrl = (env.PARTNER_API_URL ?? '').trim();
  if (!/^https?:\/\/[^\s]+$/.test(baseUrl)) {
    throw new UsageError(
      'PARTNER_API_URL must be the API address, e.g. https://invoicing.example.co.mz/api/v1/partner',
    );
  }
  const envKey = (env.PARTNER_API_KEY ?? '').trim();
  if (port !== null) {
    return {
      kind: 'http',
      baseUrl,
      port,
      host: host ?? '127.0.0.1',
      allowWrites,
      envKeyIgnored: envKey !== '',
      limits,
    };
  }
  if (envKey === '') {
    throw new UsageError(
      'PARTNER_API_KEY is not set: put the company key (svc_sk_live_... or svc_sk_test_...) in the environment',
    );
  }
  return { kind: 'stdio', baseUrl, apiKey: envKey, allowWrites };
}

function portOf(raw: string | undefined): number {
  if (raw === undefined || !/^[0-9]{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new UsageError('--http needs a port number, 0 to 65535 (0: any free port)');
  }
  return Number(raw);
}

function hostOf(raw: string | undefined): string {
  if (raw === undefined || raw === '' || raw.startsWith('-')) throw new UsageError('--host needs an address');
  return raw;
}

/** Whether an address only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
