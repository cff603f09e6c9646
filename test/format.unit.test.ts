import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTimestamp, formatTimestampByParts } from '../src/format.js';

// Zones with and without daylight saving, half- and quarter-hour offsets, a 30-minute DST shift,
// negative offsets and old local mean times (offsets with seconds).
const ZONES = [
  'Africa/Maputo',
  'UTC',
  'Europe/Lisbon',
  'America/Sao_Paulo',
  'America/St_Johns',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/New_York',
];
const YEAR_1850 = Date.UTC(1850, 0, 1);
const YEAR_2100 = Date.UTC(2100, 0, 1);

describe('formatTimestamp', () => {
  it('writes the contract format with milliseconds and offset', () => {
    expect(formatTimestamp(new Date('2026-11-22T07:30:00.005Z'), 'Africa/Maputo')).toBe(
      '2026-11-22T09:30:00.005+02:00',
    );
    expect(formatTimestamp(new Date('2026-07-01T00:00:00.120Z'), 'Europe/Lisbon')).toBe(
      '2026-07-01T01:00:00.120+01:00',
    );
  });

  it('gives the same text as the zone rules for any instant, also around the DST changes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: YEAR_1850, max: YEAR_2100 }),
        fc.constantFrom(...ZONES),
        (instant, zone) => {
          const value = new Date(instant);
          expect(formatTimestamp(value, zone)).toBe(formatTimestampByParts(value, zone));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('is exact on each side of a change of offset (Lisbon, 2026-03-29 01:00 UTC)', () => {
    const change = Date.UTC(2026, 2, 29, 1, 0, 0);
    for (const delta of [-60_001, -1, 0, 1, 899_999, 900_000]) {
      const value = new Date(change + delta);
      expect(formatTimestamp(value, 'Europe/Lisbon')).toBe(formatTimestampByParts(value, 'Europe/Lisbon'));
    }
    expect(formatTimestamp(new Date(change - 1), 'Europe/Lisbon')).toBe('2026-03-29T00:59:59.999+00:00');
    expect(formatTimestamp(new Date(change), 'Europe/Lisbon')).toBe('2026-03-29T02:00:00.000+01:00');
  });
});

describe('issue 38, goal 4: years 0001 to 9999 alike', () => {
  it('writes a timestamp of years 1 to 999 with four digits, as ISO 8601 wants', () => {
    expect(formatTimestamp(new Date('0050-03-01T10:00:00.000Z'), 'UTC')).toBe(
      '0050-03-01T10:00:00.000+00:00',
    );
    expect(formatTimestamp(new Date('0001-01-01T00:00:00.000Z'), 'UTC')).toBe(
      '0001-01-01T00:00:00.000+00:00',
    );
    expect(formatTimestamp(new Date('0999-12-31T23:59:59.999Z'), 'UTC')).toBe(
      '0999-12-31T23:59:59.999+00:00',
    );
  });
});
