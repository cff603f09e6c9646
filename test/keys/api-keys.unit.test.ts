// The format of keys (issue 22, item 4): 36 random base62 characters and a 6-character checksum,
// the CRC32 of the random part in base62, so that any one mistyped character is caught without a
// lookup; keys of the earlier format (40 random characters, no checksum) are never judged by it.
import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, generateApiKey, plausibleApiKey } from '../../src/keys/api-keys.js';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function base62(value: number, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) {
    text = BASE62[value % 62] + text;
    value = Math.floor(value / 62);
  }
  return text;
}

describe('API key format', () => {
  it('new keys: prefix, 36 random characters, the CRC32 of those in 6 base62 characters', () => {
    for (const mode of ['live', 'test'] as const) {
      for (let n = 0; n < 50; n++) {
        const { key, displayPrefix } = generateApiKey(mode);
        expect(key).toMatch(new RegExp(`^svc_sk_${mode}_[A-Za-z0-9]{42}$`));
        expect(API_KEY_PATTERN.test(key)).toBe(true);
        const random = key.slice(12, 48);
        expect(key.slice(48)).toBe(base62(crc32(random), 6));
        expect(plausibleApiKey(key)).toBe(true);
        expect(displayPrefix).toBe(key.slice(0, 16));
      }
    }
  });

  it('any one character changed, at any position of the opaque part, fails the checksum', () => {
    const { key } = generateApiKey('live');
    for (let position = 12; position < key.length; position++) {
      for (const replacement of BASE62) {
        if (replacement === key[position]) continue;
        const changed = `${key.slice(0, position)}${replacement}${key.slice(position + 1)}`;
        expect(plausibleApiKey(changed), `${position} ${replacement}`).toBe(false);
      }
    }
  });

  it('keys of any other length (those issued before: 40 random characters) are not judged by it', () => {
    let old = 'svc_sk_live_';
    for (let i = 0; i < 40; i++) old += BASE62[randomInt(62)];
    expect(plausibleApiKey(old)).toBe(true);
    expect(plausibleApiKey(`${old}AB`.slice(0, 12 + 41))).toBe(true);
  });
});
