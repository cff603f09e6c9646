// The server's own log: one line per event on stderr, never stdout (stdout carries the MCP
// protocol in stdio mode). Nothing logged ever holds an API key: lines are built from ids, codes
// and counts, and as a second guard anything shaped like a key is masked before it is written.
export type Log = (message: string) => void;

const KEY_SHAPE = /svc_sk_(live|test)_[A-Za-z0-9_-]+/g;

/** Masks every substring shaped like a Partner API key. */
export function withoutKeys(text: string): string {
  return text.replace(KEY_SHAPE, 'svc_sk_$1_[hidden]');
}

export function stderrLog(stream: NodeJS.WritableStream = process.stderr): Log {
  return (message) => {
    stream.write(`partner-mcp: ${withoutKeys(message)}\n`);
  };
}
