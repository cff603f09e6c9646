// What the console's server and pages share: its dependencies, given by `serve` (or a test), and
// the names and flags of its cookies.
import type { FastifyBaseLogger } from 'fastify';
import type { ConsoleConfig } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { OperationSetup } from '../operations/index.js';
import type { SecretBox } from './secret-box.js';

export interface ConsoleDeps {
  handle: DatabaseHandle;
  setup: OperationSetup;
  config: ConsoleConfig;
  box: SecretBox;
  /** Fastify's trustProxy (TRUST_PROXY): the client address the login throttle counts. */
  trustProxy?: boolean | number | string;
  logger?: FastifyBaseLogger;
  /** The address it listens on, once known (links and the Origin when CONSOLE_URL is not set). */
  listeningUrl?: () => string | null;
}

/** The cookies' names and flags: `__Host-` and Secure when the console is reached over https. */
export function cookieNames(config: ConsoleConfig) {
  const secure = config.url.startsWith('https://');
  const prefix = secure ? '__Host-' : '';
  return {
    secure,
    session: `${prefix}console_session`,
    csrf: `${prefix}console_csrf`,
    options: { path: '/', httpOnly: true, sameSite: 'strict' as const, secure },
  };
}
