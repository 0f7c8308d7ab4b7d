import type { DailyCount } from '../limits/types';
import { html, type Html } from '../portal/html';

/**
 * The chart of accepted requests per UTC day, of the portal's dashboard and the ops console alike:
 * SVG drawn here, on the server (inline in the dashboard; the console fetches it from
 * `GET /admin/accounts/{id}/history.svg`). No script and no inline style (neither CSP allows them):
 * geometry is in attributes, colours in each page's stylesheet (`.usage-chart`). Each bar carries
 * a tooltip (`<title>`) and its numbers in data attributes.
 */
const WIDTH = 640;
const HEIGHT = 220;
const MARGIN = { top: 12, right: 8, bottom: 28, left: 52 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;

export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** The smallest of 1, 2, 5 × 10^k that is at least `value` (and at least 1), so the axis reads cleanly. */
export function niceCeiling(value: number): number {
  if (value <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

export function usageChart(days: readonly DailyCount[]): Html {
  const top = niceCeiling(Math.max(0, ...days.map((day) => day.accepted)));
  const slot = PLOT_WIDTH / Math.max(1, days.length);
  const barWidth = Math.max(1, slot * 0.7);
  const y = (value: number) => MARGIN.top + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT;
  const total = days.reduce((sum, day) => sum + day.accepted, 0);
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';

  // A middle line only where it falls on a whole number (an axis of 1 has none).
  const gridLines = (Number.isInteger(top / 2) ? [0, top / 2, top] : [0, top]).map(
    (value) => html`<g class="grid"><line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${round(y(value))}" y2="${round(y(value))}"></line><text x="${MARGIN.left - 6}" y="${round(y(value) + 4)}" text-anchor="end">${formatCount(value)}</text></g>`,
  );
  const bars = days.map((day, i) => {
    const height = (day.accepted / top) * PLOT_HEIGHT;
    const x = MARGIN.left + i * slot + (slot - barWidth) / 2;
    const isToday = i === days.length - 1;
    return html`<rect class="${isToday ? 'bar today' : 'bar'}" x="${round(x)}" y="${round(y(day.accepted))}" width="${round(barWidth)}" height="${round(height)}" data-day="${day.day}" data-accepted="${day.accepted}"><title>${day.day}: ${formatCount(day.accepted)} accepted ${day.accepted === 1 ? 'request' : 'requests'}</title></rect>`;
  });
  // A date under every fifth bar, and "today" under the last one.
  const labels = days.map((day, i) => {
    const isToday = i === days.length - 1;
    if (!isToday && (days.length - 1 - i) % 5 !== 0) return null;
    const x = MARGIN.left + i * slot + slot / 2;
    return html`<text class="day" x="${round(x)}" y="${HEIGHT - 8}" text-anchor="middle">${isToday ? 'today' : day.day.slice(5)}</text>`;
  });

  return html`<svg class="usage-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="usage-chart-title usage-chart-desc" data-days="${days.length}" data-total="${total}">
<title id="usage-chart-title">Accepted requests per UTC day, ${first} to ${last}</title>
<desc id="usage-chart-desc">${formatCount(total)} accepted requests over ${days.length} days; the busiest day had ${formatCount(Math.max(0, ...days.map((day) => day.accepted)))}.</desc>
${gridLines}
${bars}
${labels}
</svg>`;
}

function round(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}
