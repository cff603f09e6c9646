// The TOTP secrets of the console's people are kept sealed (AES-256-GCM): a copy of the database
// alone does not give anyone's second factor. The key comes from CONSOLE_SECRET_KEY, kept outside
// the database. Without it (development, the demo; never with NODE_ENV=production) a key is
// generated once and kept in the database (table console_development_key), which protects nothing
// against a copy of the database: the banner says so.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { consoleDevelopmentKey } from '../db/schema.js';

const VERSION = 'v1';

export interface SecretBox {
  seal(plain: string): string;
  /** null when the text was not sealed with this key (another CONSOLE_SECRET_KEY): reset the person. */
  open(sealed: string): string | null;
  /** Where the key came from, for the banner. */
  source: 'CONSOLE_SECRET_KEY' | 'development key in the database';
}

export function secretBox(keyHex: string, source: SecretBox['source']): SecretBox {
  const key = Buffer.from(keyHex, 'hex');
  if (key.length !== 32) throw new Error('the console key must be 32 bytes');
  return {
    source,
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), body]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || body === undefined) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        return null;
      }
    },
  };
}

/** Thrown where the console cannot have a key: production without CONSOLE_SECRET_KEY. */
export class MissingConsoleKey extends Error {}

/** The key of this process: CONSOLE_SECRET_KEY, or (not in production) the database's development key. */
export async function consoleSecretBox(
  db: Database,
  configured: string | undefined,
  production: boolean,
): Promise<SecretBox> {
  if (configured) return secretBox(configured, 'CONSOLE_SECRET_KEY');
  if (production) {
    throw new MissingConsoleKey(
      'CONSOLE_SECRET_KEY is required with NODE_ENV=production (64 hex digits, e.g. `openssl rand -hex 32`)',
    );
  }
  // Servers starting together agree on one key: the first insert wins.
  await db
    .insert(consoleDevelopmentKey)
    .values({ key: randomBytes(32).toString('hex') })
    .onConflictDoNothing();
  const [row] = await db
    .select({ key: consoleDevelopmentKey.key })
    .from(consoleDevelopmentKey)
    .where(sql`true`);
  if (!row) throw new Error('the console development key is missing');
  return secretBox(row.key, 'development key in the database');
}
