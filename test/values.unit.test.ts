// src/values.ts: the calendar's own rules, years 0001 to 9999 alike (issue 38, goal 4).
import { describe, expect, it } from 'vitest';
import { isCalendarDate } from '../src/values.js';

describe('isCalendarDate', () => {
  it('takes every existing date of years 0001 to 9999, the first century too', () => {
    for (const date of [
      '0001-01-01',
      '0050-03-01',
      '0099-12-31',
      '0004-02-29',
      '0400-02-29',
      '2000-02-29',
      '9999-12-31',
    ]) {
      expect(isCalendarDate(date), date).toBe(true);
    }
  });

  it('refuses what the calendar does not have', () => {
    for (const date of [
      '0000-01-01',
      '0100-02-29',
      '1900-02-29',
      '2026-02-30',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-1-01',
      ' 2026-01-01',
    ]) {
      expect(isCalendarDate(date), date).toBe(false);
    }
  });
});
