#!/usr/bin/env node
// `npx @invoicing/partner-mcp`: MCP over stdio with the key in PARTNER_API_KEY, or over
// Streamable HTTP with `--http PORT`. stdout belongs to the protocol: everything else goes to
// stderr. Exit codes: 0 normal end, 1 the API refused the key or could not be reached at start,
// 2 wrong arguments or environment.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { startHttpServer } from './http.js';
import { stderrLog } from './log.js';
import { isLoopback, type Options, parseOptions, USAGE, UsageError } from './options.js';
import { toolError } from './render.js';
import { createMcpServer, openKeySession, VERSION } from './server.js';

const log = stderrLog();

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(error.message);
    process.stderr.write(USAGE);
    return 2;
  }
  switch (options.kind) {
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case 'http':
      return serveHttp(options);
    case 'stdio':
      return serveStdio(options);
  }
}

async function serveStdio(options: Extract<Options, { kind: 'stdio' }>): Promise<number> {
  let session: Awaited<ReturnType<typeof openKeySession>>;
  try {
    session = await openKeySession({ ...options, log });
  } catch (error) {
    const failure = toolError(error);
    log(`cannot start: ${failure.code}: ${failure.message}${failure.hint ? ` ${failure.hint}` : ''}`);
    return 1;
  }
  const server = createMcpServer(session, log);
  await server.connect(new StdioServerTransport());
  const who = session.identity
    ? `company id ${session.identity.tenant_id} (${session.identity.mode} key)`
    : 'a key without customers:read';
  log(`ready on stdio for ${who}; tools: ${session.grant.tools.map((tool) => tool.name).join(', ')}`);
  log(session.grant.access.writesNote);
  // The assistant closing our stdin is the end of the session.
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.close();
  return 0;
}

async function serveHttp(options: Extract<Options, { kind: 'http' }>): Promise<number> {
  if (options.envKeyIgnored) {
    log('PARTNER_API_KEY is ignored with --http: each MCP client sends its own key as a bearer token');
  }
  const server = await startHttpServer({ ...options, log });
  log(
    `listening on ${server.url} (Streamable HTTP); writes ${options.allowWrites ? 'allowed for live keys with write scopes' : 'off (no --allow-writes)'}`,
  );
  if (!isLoopback(options.host)) {
    log(
      `warning: ${options.host} is not a loopback address; put TLS in front of it, since keys travel in every request`,
    );
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`stopped: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
