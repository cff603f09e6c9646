// The readers of ids, durations and moments (src/operations/arguments.ts): one grammar each, good
// and bad values side by side; and a bad value reads the same, with the same exit status, from
// every command that takes it (main() in this process, before any database is opened).
import { describe, expect, it } from 'vitest';
import {
  companyArg,
  idArg,
  type Moment,
  optionalCompany,
  optionalDuration,
  optionalMoment,
} from '../../src/operations/arguments.js';
import { ArgumentError } from '../../src/operations/errors.js';
import { runInProcess } from '../helpers/cli.js';

// The messages asserted are the English ones: they ask for English (Portuguese is the default; the
// refusals in Portuguese are test/cli/refusals.unit.test.ts).
const NO_DATABASE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', INVOICING_LANG: 'en' };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The message of the ArgumentError `read` throws, or its value when it throws none. */
function outcome<T>(read: () => T): T | { refused: string } {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ArgumentError)) throw error;
    return { refused: error.message };
  }
}

describe('ids', () => {
  const cases: [unknown, number | string][] = [
    ['1', 1],
    [' 42 ', 42],
    [42, 42],
    ['2147483647', 2_147_483_647],
    ['0', 'company must be a positive integer id'],
    ['-1', 'company must be a positive integer id'],
    ['1.5', 'company must be a positive integer id'],
    ['1e3', 'company must be a positive integer id'],
    ['007', 'company must be a positive integer id'],
    ['2147483648', 'company must be a positive integer id'],
    ['abc', 'company must be a positive integer id'],
    ['', 'company is required'],
    [undefined, 'company is required'],
  ];
  it.each(cases)('--company %j', (value, expected) => {
    const read = outcome(() => companyArg({ company: value }));
    expect(read).toEqual(typeof expected === 'number' ? expected : { refused: expected });
  });

  it('an optional id is undefined when not given, and read by the same grammar when given', () => {
    expect(optionalCompany({})).toBeUndefined();
    expect(outcome(() => optionalCompany({ company: 'x' }))).toEqual({
      refused: 'company must be a positive integer id',
    });
    expect(outcome(() => idArg({ id: 'x' }, 'id', 'key id'))).toEqual({
      refused: 'key id must be a positive integer id',
    });
  });
});

describe('durations', () => {
  const MAX = 30 * DAY;
  const cases: [unknown, number | string][] = [
    ['90s', 90_000],
    ['30m', 30 * MINUTE],
    ['24h', DAY],
    [' 7d ', 7 * DAY],
    ['0h', 0],
    ['30d', 30 * DAY],
    ['43200m', 30 * DAY],
    ['31d', 'grace must be a duration such as 30m, 24h or 7d, at most 30 days, got "31d"'],
    ['-1h', 'grace must be a duration such as 30m, 24h or 7d, at most 30 days, got "-1h"'],
    ['1.5h', 'grace must be a duration such as 30m, 24h or 7d, at most 30 days, got "1.5h"'],
    ['1w', 'grace must be a duration such as 30m, 24h or 7d, at most 30 days, got "1w"'],
    ['1H', 'grace must be a duration such as 30m, 24h or 7d, at most 30 days, got "1H"'],
    ['24', 'grace must be a duration such as 30m, 24h or 7d, at most 30 days, got "24"'],
    ['forever', 'grace must be a duration such as 30m, 24h or 7d, at most 30 days, got "forever"'],
    ['', 'grace must be a duration such as 30m, 24h or 7d, at most 30 days, got ""'],
  ];
  it.each(cases)('--grace %j', (value, expected) => {
    const read = outcome(() => optionalDuration({ grace: value }, 'grace', MAX));
    expect(read).toEqual(typeof expected === 'number' ? expected : { refused: expected });
  });

  it('undefined when not given', () => {
    expect(optionalDuration({}, 'grace', MAX)).toBeUndefined();
  });
});

describe('moments', () => {
  const problem = (got: string) =>
    `since must be a date YYYY-MM-DD, a moment like 2026-11-22T09:30:00+02:00, or a time ago like 30m, 6h, 2d, got "${got}"`;
  /** A moment, with a time ago given as how long ago (ms) instead of its instant. */
  type Read = { date: string } | { at: string } | { ago: number } | { refused: string };
  const cases: [string, Read][] = [
    ['2026-11-22', { date: '2026-11-22' }],
    [' 2026-11-22 ', { date: '2026-11-22' }],
    ['2024-02-29', { date: '2024-02-29' }],
    ['2026-11-22T09:30:00+02:00', { at: '2026-11-22T07:30:00.000Z' }],
    ['2026-11-22T09:30+02:00', { at: '2026-11-22T07:30:00.000Z' }],
    ['2026-11-22T09:30:00.123Z', { at: '2026-11-22T09:30:00.123Z' }],
    ['30m', { ago: 30 * MINUTE }],
    ['1h', { ago: HOUR }],
    ['2d', { ago: 2 * DAY }],
    ['90s', { ago: 90_000 }],
    ['0m', { ago: 0 }],
    ['99999d', { ago: 99_999 * DAY }],
    ['100000d', { refused: problem('100000d') }],
    ['2026-02-30', { refused: problem('2026-02-30') }],
    ['2026-11-22T09:30:00', { refused: problem('2026-11-22T09:30:00') }],
    ['2026-11-22 09:30:00+02:00', { refused: problem('2026-11-22 09:30:00+02:00') }],
    ['2026-11-22T25:00:00Z', { refused: problem('2026-11-22T25:00:00Z') }],
    ['yesterday', { refused: problem('yesterday') }],
    ['-1h', { refused: problem('-1h') }],
    ['1w', { refused: problem('1w') }],
    ['', { refused: problem('') }],
  ];
  it.each(cases)('--since %j', (value, expected) => {
    const before = Date.now();
    const read: Moment | { refused: string } | undefined = outcome(() =>
      optionalMoment({ since: value }, 'since'),
    );
    const after = Date.now();
    if (read === undefined) throw new Error('a given value read as none');
    if ('ago' in expected) {
      if (!('at' in read)) throw new Error(`not an instant: ${JSON.stringify(read)}`);
      expect(read.at.getTime()).toBeGreaterThanOrEqual(before - expected.ago);
      expect(read.at.getTime()).toBeLessThanOrEqual(after - expected.ago);
    } else if ('at' in expected) {
      expect('at' in read && read.at.toISOString()).toBe(expected.at);
    } else {
      expect(read).toEqual(expected);
    }
  });

  it('undefined when not given; a JSON value that is not text is refused', () => {
    expect(optionalMoment({}, 'since')).toBeUndefined();
    expect(outcome(() => optionalMoment({ until: 5 }, 'until'))).toEqual({
      refused:
        'until must be a date YYYY-MM-DD, a moment like 2026-11-22T09:30:00+02:00, or a time ago like 30m, 6h, 2d, got "5"',
    });
  });
});

describe('every command reads them alike', () => {
  /** The command lines that take the same kind, with the same bad value in it. */
  const SAME_KIND: [string, string[][]][] = [
    [
      'since must be a date YYYY-MM-DD, a moment like 2026-11-22T09:30:00+02:00, or a time ago like 30m, 6h, 2d, got "yesterday"',
      [
        ['audit', '--since', 'yesterday'],
        ['requests', 'list', '--company', '1', '--since', 'yesterday'],
        ['webhooks', 'resend', '--endpoint', '1', '--since', 'yesterday'],
      ],
    ],
    [
      'company must be a positive integer id',
      [
        ['audit', '--company', 'x'],
        ['requests', 'list', '--company', 'x'],
        ['keys', 'list', '--company', 'x'],
        ['webhooks', 'list', '--company', 'x'],
        ['lists', 'verify', '--company', 'x'],
        ['taxes', 'create', '--company', 'x', '--name', 'IVA', '--rate', '16'],
      ],
    ],
  ];

  it.each(SAME_KIND)('%s: exit 2, the same message, from each', async (message, lines) => {
    for (const argv of lines) {
      const result = await runInProcess([...argv, '--json'], NO_DATABASE);
      expect({ argv, code: result.code, stdout: result.stdout }).toEqual({ argv, code: 2, stdout: '' });
      expect(JSON.parse(result.stderr), argv.join(' ')).toMatchObject({
        error: { kind: 'usage', message, exit_status: 2 },
      });
    }
  });

  it('every moment form works in each of them (parsed, then refused only for the database)', async () => {
    for (const since of ['2026-11-22', '2026-11-22T09:30:00+02:00', '30m', '2d']) {
      for (const argv of [
        ['audit', '--since', since],
        ['requests', 'list', '--company', '1', '--since', since],
        ['webhooks', 'resend', '--endpoint', '1', '--since', since],
      ]) {
        const result = await runInProcess([...argv, '--json'], NO_DATABASE);
        expect({ argv, code: result.code }).toEqual({ argv, code: 1 });
      }
    }
  });
});
