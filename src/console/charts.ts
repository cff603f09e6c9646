// The usage page's charts, drawn on the server as SVG: no script in the page (the CSP allows
// none inline), nothing to load, and the same numbers are in the page's tables for screen readers
// and for copying. Colours are SVG attributes (the CSP allows no inline style). Labels are escaped
// here because the SVG is put into the page unescaped.
import type { UsagePoint } from '../operations/requests/index.js';

const escapeText = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 48;
const BOTTOM = 28;
const TOP = 12;

export interface Series {
  label: string;
  colour: string;
  values: number[];
}

/** A round upper bound for the axis (1, 2, 5 × 10^n). */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

function frame(
  title: string,
  id: string,
  max: number,
  labels: string[],
  body: string,
  legend: Series[],
): string {
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const ticks = [0, max / 2, max]
    .map((tick) => {
      const y = TOP + plotHeight - (tick / max) * plotHeight;
      return `<line x1="${LEFT}" x2="${WIDTH}" y1="${y}" y2="${y}" stroke="#c9d1d9"/><text x="${LEFT - 4}" y="${y + 4}" text-anchor="end" font-size="11" fill="#4a5560">${Number(tick.toFixed(1))}</text>`;
    })
    .join('');
  const every = Math.max(1, Math.ceil(labels.length / 8));
  const slot = (WIDTH - LEFT) / Math.max(1, labels.length);
  const xLabels = labels
    .map((label, index) =>
      index % every === 0
        ? `<text x="${LEFT + slot * index + slot / 2}" y="${HEIGHT - 8}" text-anchor="middle" font-size="11" fill="#4a5560">${escapeText(label)}</text>`
        : '',
    )
    .join('');
  const key = legend
    .map(
      (s, index) =>
        `<rect x="${LEFT + index * 130}" y="${HEIGHT + 6}" width="12" height="12" fill="${s.colour}"/><text x="${LEFT + index * 130 + 16}" y="${HEIGHT + 16}" font-size="12" fill="#1b1f24">${escapeText(s.label)}</text>`,
    )
    .join('');
  return `<svg class="chart" id="${escapeText(id)}" viewBox="0 0 ${WIDTH} ${HEIGHT + 24}" role="img" aria-labelledby="${escapeText(id)}-title" xmlns="http://www.w3.org/2000/svg"><title id="${escapeText(id)}-title">${escapeText(title)}</title>${ticks}${body}${xLabels}${key}</svg>`;
}

/** Stacked bars, one per interval. */
export function stackedBars(title: string, id: string, labels: string[], series: Series[]): string {
  const totals = labels.map((_, index) => series.reduce((sum, s) => sum + (s.values[index] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / Math.max(1, labels.length);
  const bars = labels
    .map((_, index) => {
      let y = TOP + plotHeight;
      return series
        .map((s) => {
          const value = s.values[index] ?? 0;
          if (value === 0) return '';
          const height = (value / max) * plotHeight;
          y -= height;
          return `<rect x="${LEFT + slot * index + slot * 0.15}" y="${y}" width="${slot * 0.7}" height="${height}" fill="${s.colour}"/>`;
        })
        .join('');
    })
    .join('');
  return frame(title, id, max, labels, bars, series);
}

/** Lines, one per series (a missing value, null, breaks the line). */
export function lines(
  title: string,
  id: string,
  labels: string[],
  series: { label: string; colour: string; values: (number | null)[] }[],
): string {
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values.map((v) => v ?? 0))));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / Math.max(1, labels.length);
  const body = series
    .map((s) => {
      const points = s.values
        .map((value, index) =>
          value === null
            ? null
            : `${LEFT + slot * index + slot / 2},${TOP + plotHeight - (value / max) * plotHeight}`,
        )
        .filter((point): point is string => point !== null);
      const dots = points.map((point) => {
        const [x, y] = point.split(',');
        return `<circle cx="${x}" cy="${y}" r="3" fill="${s.colour}"/>`;
      });
      return `<polyline points="${points.join(' ')}" fill="none" stroke="${s.colour}" stroke-width="2"/>${dots.join('')}`;
    })
    .join('');
  return frame(
    title,
    id,
    max,
    labels,
    body,
    series.map((s) => ({ ...s, values: [] })),
  );
}

/** The interval's label: `HH:MM` over a day, the date otherwise. */
export function pointLabel(point: UsagePoint, step: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(point.from);
  if (!match) return point.from;
  return step === '1h'
    ? `${match[4]}:${match[5]}`
    : step === '1d'
      ? `${match[3]}/${match[2]}`
      : `${match[3]}/${match[2]} ${match[4]}h`;
}
