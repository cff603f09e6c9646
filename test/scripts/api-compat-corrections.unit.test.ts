// The reviewed list of corrections of the compatibility gate (issue 38, goal 2): where the released
// document described the API more loosely than it always behaved, the regenerated document says so,
// api/corrections.json names each such finding by its path with the reason, the gate prints it as an
// accepted correction instead of a break, and an entry that matches no finding fails as stale. The
// v1 baseline stays as released.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { compareDocuments } from '../../scripts/api-compat/compare.js';
import { judge, parseCorrections } from '../../scripts/api-compat/corrections.js';

// biome-ignore lint/suspicious/noExplicitAny: seeded edits reach anywhere into the document
type Doc = any;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): Doc => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
const BASELINE = read('api/baseline/openapi-1.0.0.json');

const PRICE = '$.components.schemas.ProductInput.properties.price';
const PRODUCT_ID = '$.components.schemas.InvoiceLineInput.properties.product_id';

/** The baseline with the kind of correction issue 38 makes: a maximum the API always enforced. */
function corrected(): Doc {
  const head = structuredClone(BASELINE);
  head.components.schemas.ProductInput.properties.price.exclusiveMaximum = 10_000_000_000_000_000;
  return head;
}

describe('api/corrections.json: reviewed corrections of the document (issue 38, goal 2)', () => {
  it('the v1 baseline stays as released: api/baseline/openapi-1.0.0.json is the document released as 1.0.0', () => {
    const text = readFileSync(join(ROOT, 'api/baseline/openapi-1.0.0.json'));
    expect(createHash('sha256').update(text).digest('hex')).toBe(
      '7816a602be912fbf72990985777a42b8b0758c2c129968a9863c56f331035e49',
    );
    expect(JSON.parse(text.toString()).info.version).toBe('1.0.0');
  });

  it('the shipped list is well formed (each entry a path and a reason)', () => {
    const text = readFileSync(join(ROOT, 'api/corrections.json'), 'utf8');
    expect(() => parseCorrections(text, 'api/corrections.json')).not.toThrow();
  });

  it('a finding whose path is listed is accepted with its reason, not a break; the others still break', () => {
    const head = corrected();
    head.components.schemas.CustomerCreate.properties.name.maxLength = 100;
    const findings = compareDocuments(BASELINE, head);
    expect(findings.map(({ path }) => path)).toEqual([
      '$.components.schemas.CustomerCreate.properties.name',
      PRICE,
    ]);
    const reason = 'The API always refused a price of 10^16 or more; the document now says so.';
    const judged = judge(findings, [{ path: PRICE, reason }]);
    expect(judged.accepted).toEqual([
      {
        finding: { path: PRICE, message: 'exclusiveMaximum changed from none to 10000000000000000' },
        correction: { path: PRICE, reason },
      },
    ]);
    expect(judged.breaking).toEqual([
      {
        path: '$.components.schemas.CustomerCreate.properties.name',
        message: 'maxLength changed from 255 to 100',
      },
    ]);
    expect(judged.stale).toEqual([]);
  });

  it('an entry that matches no finding is stale', () => {
    const reason = 'A line always needed a product; null was always refused.';
    const judged = judge(compareDocuments(BASELINE, corrected()), [
      { path: PRICE, reason: 'The API always refused 10^16 and more.' },
      { path: PRODUCT_ID, reason },
    ]);
    expect(judged.breaking).toEqual([]);
    expect(judged.accepted.map(({ finding }) => finding.path)).toEqual([PRICE]);
    expect(judged.stale).toEqual([{ path: PRODUCT_ID, reason }]);
  });

  it('an entry with a message accepts only the finding with that message at its path', () => {
    const head = corrected();
    head.components.schemas.ProductInput.properties.price.type = 'integer';
    const findings = compareDocuments(BASELINE, head);
    expect(findings).toEqual([
      { path: PRICE, message: 'no longer accepts type number' },
      { path: PRICE, message: 'exclusiveMaximum changed from none to 10000000000000000' },
    ]);
    const correction = {
      path: PRICE,
      message: 'exclusiveMaximum changed from none to 10000000000000000',
      reason: 'The API always refused 10^16 and more.',
    };
    const judged = judge(findings, [correction]);
    expect(judged.breaking).toEqual([{ path: PRICE, message: 'no longer accepts type number' }]);
    expect(judged.accepted).toEqual([{ finding: findings[1], correction }]);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['no list', '{}', /expected \{ "corrections"/],
    ['a list at the top', '[]', /expected \{ "corrections"/],
    ['another key', '{ "corrections": [], "accepted": [] }', /unknown key accepted/],
    ['an entry without a reason', `{ "corrections": [{ "path": "${PRICE}" }] }`, /"reason" must say why/],
    [
      'an empty reason',
      `{ "corrections": [{ "path": "${PRICE}", "reason": " " }] }`,
      /"reason" must say why/,
    ],
    [
      'a path that is not a JSON path',
      '{ "corrections": [{ "path": "price", "reason": "always refused" }] }',
      /"path" must be a JSON path/,
    ],
    [
      'an unknown field in an entry',
      `{ "corrections": [{ "path": "${PRICE}", "reason": "always refused", "by": "x" }] }`,
      /unknown key by/,
    ],
    [
      'the same path twice',
      `{ "corrections": [{ "path": "${PRICE}", "reason": "always refused" }, { "path": "${PRICE}", "reason": "always refused" }] }`,
      /corrections\[1\]: .* is listed twice/,
    ],
  ])('refuses a malformed list: %s', (_what, text, error) => {
    expect(() => parseCorrections(text, 'api/corrections.json')).toThrow(error);
  });

  it('npm run api:compat -- --corrections LIST A B prints the accepted correction with its reason, checks every file, and fails on a stale entry', async () => {
    const run = promisify(execFile);
    const tsx = join(ROOT, 'node_modules/.bin/tsx');
    const dir = mkdtempSync(join(tmpdir(), 'api-compat-corrections-'));
    try {
      const fixed = join(dir, 'fixed.json');
      const released = join(dir, 'released.json');
      const list = join(dir, 'corrections.json');
      writeFileSync(fixed, JSON.stringify(corrected()));
      writeFileSync(released, JSON.stringify(BASELINE));
      const reason = 'The API always refused a price of 10^16 or more.';
      writeFileSync(list, JSON.stringify({ corrections: [{ path: PRICE, reason }] }));
      const failed = await run(tsx, ['scripts/api-compat.ts', '--corrections', list, fixed, released], {
        cwd: ROOT,
      }).then(
        () => null,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      // The corrected document passes, its finding printed with the reason...
      expect(failed?.stdout).toContain(
        `${PRICE}: exclusiveMaximum changed from none to 10000000000000000 (accepted correction: ${reason})`,
      );
      expect(failed?.stdout).toContain(`${fixed}: no breaking change`);
      // ...and the released one, which has no such finding, makes the entry stale.
      expect(failed?.stderr).toContain(`${list}: stale correction ${PRICE}: ${released} has no such finding`);
      expect(failed?.stderr).toContain(`${released}: 0 breaking change(s)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
