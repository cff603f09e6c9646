// Output formats of the contract besides money (src/money.ts): timestamps with offset and
// milliseconds in the service's time zone, quantities and rates as JSON numbers.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** `2026-11-22T09:30:00.000+02:00`, from the zone's rules (Intl): the exact answer, and slow. */
export function formatTimestampByParts(value: Date, timeZone: string): string {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(value)) parts[part.type] = part.value;
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : (parts.timeZoneName ?? 'GMT+00:00').slice(3);
  const millis = String(value.getUTCMilliseconds()).padStart(3, '0');
  // Intl writes year 50 as "50": ISO 8601 wants four digits, as for every other year.
  return `${(parts.year ?? '').padStart(4, '0')}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${millis}${offset}`;
}

/**
 * Zones change their offset at instants that are whole quarter hours of UTC (every offset in use is
 * a multiple of 15 minutes), so an offset found at the start of each quarter hour of a UTC day,
 * and at its end, holds for the whole day when all agree: the day's offset is remembered (a few
 * thousand days cover any data set; remembering quarter hours filled a large map and, at a million
 * rows, was cleared over and over). A day where they differ (a change of offset, old local mean
 * times) keeps its offsets per quarter hour, each remembered only when its two ends agree.
 */
const QUARTER_HOUR_MS = 15 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const QUARTERS_PER_DAY = DAY_MS / QUARTER_HOUR_MS;
const MAX_REMEMBERED = 100_000;

interface ZoneOffset {
  text: string;
  ms: number;
}

/** Per zone: the offset of each UTC day (null: it changes that day), and of quarter hours of such days. */
interface ZoneOffsets {
  days: Map<number, ZoneOffset | null>;
  quarters: Map<number, ZoneOffset | null>;
}

const offsetsByZone = new Map<string, ZoneOffsets>();

/** Formats only the zone's offset ("11/22/2026, GMT+02:00"): a fifth of the time of formatToParts. */
const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

function offsetAt(instant: number, timeZone: string): ZoneOffset {
  let formatter = offsetFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormatters.set(timeZone, formatter);
  }
  const formatted = formatter.format(instant);
  const name = formatted.slice(formatted.lastIndexOf('GMT'));
  const text = name === 'GMT' ? '+00:00' : name.slice(3);
  const [hours = 0, minutes = 0, seconds = 0] = text.slice(1).split(':').map(Number);
  const ms = (text.startsWith('-') ? -1 : 1) * ((hours * 60 + minutes) * 60 + seconds) * 1000;
  return { text, ms };
}

function remember<K>(map: Map<K, ZoneOffset | null>, key: K, offset: ZoneOffset | null): void {
  if (map.size >= MAX_REMEMBERED) map.clear();
  map.set(key, offset);
}

/** The offset of a whole UTC day, or null when it is not the same at every quarter hour of it. */
function dayOffset(day: number, timeZone: string): ZoneOffset | null {
  const first = offsetAt(day * DAY_MS, timeZone);
  for (let quarter = 1; quarter <= QUARTERS_PER_DAY; quarter++) {
    const instant =
      quarter === QUARTERS_PER_DAY ? (day + 1) * DAY_MS - 1 : day * DAY_MS + quarter * QUARTER_HOUR_MS;
    if (offsetAt(instant, timeZone).text !== first.text) return null;
  }
  return first;
}

/** The zone's offset at `instant`, or null when it changes within that quarter hour. */
function zoneOffset(instant: number, timeZone: string): ZoneOffset | null {
  let zone = offsetsByZone.get(timeZone);
  if (!zone) {
    zone = { days: new Map(), quarters: new Map() };
    offsetsByZone.set(timeZone, zone);
  }
  const day = Math.floor(instant / DAY_MS);
  let offset = zone.days.get(day);
  if (offset === undefined) {
    offset = dayOffset(day, timeZone);
    remember(zone.days, day, offset);
  }
  if (offset) return offset;
  const quarter = Math.floor(instant / QUARTER_HOUR_MS);
  let inQuarter = zone.quarters.get(quarter);
  if (inQuarter === undefined) {
    const start = offsetAt(quarter * QUARTER_HOUR_MS, timeZone);
    const end = offsetAt((quarter + 1) * QUARTER_HOUR_MS - 1, timeZone);
    inQuarter = start.text === end.text ? start : null;
    remember(zone.quarters, quarter, inQuarter);
  }
  return inQuarter;
}

const pad2 = (value: number) => (value < 10 ? `0${value}` : String(value));

/**
 * `2026-11-22T09:30:00.000+02:00`: the same text as formatTimestampByParts, from the remembered
 * offset of the day (or quarter hour) and plain date arithmetic (Intl per value was 3% of a read's CPU).
 */
export function formatTimestamp(value: Date, timeZone: string): string {
  const instant = value.getTime();
  const offset = Number.isFinite(instant) ? zoneOffset(instant, timeZone) : null;
  const local = offset ? new Date(instant + offset.ms) : null;
  const year = local?.getUTCFullYear() ?? 0;
  if (!offset || !local || year < 1000 || year > 9999) return formatTimestampByParts(value, timeZone);
  const millis = local.getUTCMilliseconds();
  return `${year}-${pad2(local.getUTCMonth() + 1)}-${pad2(local.getUTCDate())}T${pad2(local.getUTCHours())}:${pad2(local.getUTCMinutes())}:${pad2(local.getUTCSeconds())}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}${offset.text}`;
}

/** numeric quantities and rates become JSON numbers ("1.5000" -> 1.5). */
export function decimalNumber(value: string | null): number | null {
  return value === null ? null : Number(value);
}
