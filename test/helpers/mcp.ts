// For the MCP server tests: the server of clients/mcp as a real process (`partner-mcp`, run from
// its source with tsx), reached with the official SDK's own client over stdio or Streamable HTTP.
// Everything a process writes and every tool result is kept, so a test can search it all.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { bundled } from './bundle.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The MCP server's command line from its sources (bundled: test/helpers/bundle.ts). */
export async function mcpCommand(): Promise<string[]> {
  return [await bundled('clients/mcp/src/cli.ts')];
}

export const DATA_OPEN = '<partner-api-data>';
export const DATA_CLOSE = '</partner-api-data>';
export const ERROR_OPEN = '<partner-api-error>';
export const ERROR_CLOSE = '</partner-api-error>';

/** Everything the MCP processes and tools of a test file said, for the "no key anywhere" check. */
export class Transcript {
  readonly chunks: string[] = [];
  add(text: string): void {
    this.chunks.push(text);
  }
  text(): string {
    return this.chunks.join('\n');
  }
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

export interface McpConnection {
  client: Client;
  /** What the server process wrote on stderr (stdio only; HTTP sessions share their server's). */
  stderr(): string;
  /** Errors the SDK's client met on the wire (e.g. a stdout line that is not JSON-RPC). */
  wireErrors: Error[];
  close(): Promise<void>;
}

/** `partner-mcp` over stdio with the key in PARTNER_API_KEY. */
export async function connectStdio(
  options: { key: string; baseUrl: string; args?: string[] },
  transcript: Transcript,
): Promise<McpConnection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(await mcpCommand()), ...(options.args ?? [])],
    cwd: ROOT,
    env: { ...baseEnv(), PARTNER_API_KEY: options.key, PARTNER_API_URL: options.baseUrl },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    transcript.add(chunk.toString('utf8'));
  });
  const client = new Client({ name: 'partner-mcp-test', version: '1.0.0' });
  const wireErrors: Error[] = [];
  client.onerror = (error) => wireErrors.push(error);
  await client.connect(transport);
  return { client, stderr: () => stderr, wireErrors, close: () => client.close() };
}

export interface HttpMcpProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `partner-mcp --http 0` (any free port on 127.0.0.1), ready when it says where it listens. */
export async function startHttpMcp(
  options: { baseUrl: string; args?: string[]; env?: Record<string, string> },
  transcript: Transcript,
): Promise<HttpMcpProcess> {
  const child = spawn(process.execPath, [...(await mcpCommand()), '--http', '0', ...(options.args ?? [])], {
    cwd: ROOT,
    env: { ...baseEnv(), PARTNER_API_URL: options.baseUrl, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    transcript.add(chunk.toString('utf8'));
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  let url: string | undefined;
  while (!url) {
    url = /listening on (http:\/\/\S+\/mcp)/.exec(output)?.[1];
    if (url) break;
    if (child.exitCode !== null) throw new Error(`partner-mcp --http exited early:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`partner-mcp --http did not start in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export type HttpConnection = McpConnection & { sessionId(): string };

/** An MCP client of the HTTP server, sending `key` as its bearer token (and `headers` with every request). */
export async function connectHttp(
  url: string,
  key: string,
  headers: Record<string, string> = {},
): Promise<HttpConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...headers, authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'partner-mcp-test', version: '1.0.0' });
  const wireErrors: Error[] = [];
  client.onerror = (error) => wireErrors.push(error);
  await client.connect(transport);
  return {
    client,
    stderr: () => '',
    wireErrors,
    sessionId: () => transport.sessionId ?? '',
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** The JSON between two markers of a tool result's only text content. */
export function between(text: string, open: string, close: string): unknown {
  expect(text.split(open)).toHaveLength(2);
  expect(text.split(close)).toHaveLength(2);
  const inner = text.slice(text.indexOf(open) + open.length, text.indexOf(close));
  return JSON.parse(inner);
}

/** The one text content of a tool result (recorded in the transcript). */
export function textOf(result: CallToolResult, transcript: Transcript): string {
  transcript.add(JSON.stringify(result));
  expect(result.content).toHaveLength(1);
  const [content] = result.content;
  if (content?.type !== 'text') throw new Error('the result has no text content');
  return content.text;
}

/** Calls a tool that must succeed: its structured result, checked against its own text content. */
export async function callOk(
  connection: McpConnection,
  name: string,
  args: Record<string, unknown>,
  transcript: Transcript,
): Promise<Record<string, unknown>> {
  const result = (await connection.client.callTool({ name, arguments: args })) as CallToolResult;
  const text = textOf(result, transcript);
  expect(result.isError, `${name}: ${text}`).toBeFalsy();
  // The text is a faithful rendering of the structured result, between its markers.
  expect(between(text, DATA_OPEN, DATA_CLOSE)).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

/** Calls a tool that must fail: the error object of its text content. */
export async function callError(
  connection: McpConnection,
  name: string,
  args: Record<string, unknown>,
  transcript: Transcript,
): Promise<{ text: string; error: Record<string, unknown> | null }> {
  const result = (await connection.client.callTool({ name, arguments: args })) as CallToolResult;
  const text = textOf(result, transcript);
  expect(result.isError, `${name} should fail: ${text}`).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  if (!text.includes(ERROR_OPEN)) return { text, error: null };
  return {
    text,
    error: (between(text, ERROR_OPEN, ERROR_CLOSE) as { error: Record<string, unknown> }).error,
  };
}
