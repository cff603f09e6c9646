// What the README promises about idempotency takeovers must be what decisions.md decided
// ("Idempotency": when the holder's database session is known to be gone the takeover is
// immediate; otherwise after the lock timeout) and what src/http/idempotency.ts does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('README', () => {
  it("issue 39, goal 8: the README's dead-claim text matches decisions.md: immediate when the holder's session is known to be gone, otherwise after the lock timeout", () => {
    const sentence = /If the connection was cut after a write's claim was committed, [^.]*\.[^.]*\./.exec(
      README,
    )?.[0];
    expect(sentence).toBeDefined();
    expect(sentence).toContain("at once when the holder's database session is known to be gone");
    expect(sentence).toContain('otherwise after the lock timeout (`IDEMPOTENCY_LOCK_TIMEOUT_SECONDS`');
    // Never a flat wait of about a minute for every dead claim.
    expect(README).not.toMatch(/takeover[^.]*\(about a minute\)/);
  });
});
