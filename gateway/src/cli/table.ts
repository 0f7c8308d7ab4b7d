/** The CLI's tables: plain text, one row per line, columns padded to their widest cell. */

/** One column: its title and how a row (a JSON object from the admin API) shows in it. */
export interface Column {
  title: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  value: (row: Record<string, any>) => unknown;
  /** Right-aligned, with thousands separators. */
  number?: boolean;
}

const numbers = new Intl.NumberFormat('en');

export function renderTable(columns: Column[], rows: Record<string, unknown>[]): string {
  const cells = rows.map((row) => columns.map((column) => cellText(column, column.value(row))));
  const widths = columns.map((column, i) => Math.max(width(column.title), ...cells.map((line) => width(line[i]!))));
  const line = (texts: string[]) =>
    texts
      .map((text, i) => (columns[i]!.number ? pad(text, widths[i]!, 'start') : i === texts.length - 1 ? text : pad(text, widths[i]!, 'end')))
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((column) => column.title)), ...cells.map(line)].join('\n')}\n`;
}

function cellText(column: Column, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (column.number && typeof value === 'number') return numbers.format(value);
  // Names come from anyone who can create an account: no control character may reach the terminal.
  // eslint-disable-next-line no-control-regex
  return String(value).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** Code points, not UTF-16 units, so accents and emoji do not shift the columns (wide CJK still may). */
function width(text: string): number {
  return [...text].length;
}

function pad(text: string, to: number, side: 'start' | 'end'): string {
  const fill = ' '.repeat(Math.max(0, to - width(text)));
  return side === 'start' ? fill + text : text + fill;
}

/** ISO 8601 → `2026-01-02 03:04:05`. */
export function formatTime(iso: unknown): string {
  return typeof iso === 'string' ? iso.replace('T', ' ').replace(/(\.\d+)?Z$/, '') : '';
}

/** A share of quota as a whole percentage; a little use never reads as 0%. */
export function shareOf(used: unknown, quota: unknown): string {
  if (typeof used !== 'number' || typeof quota !== 'number' || quota <= 0) return '';
  const percent = (used / quota) * 100;
  return percent > 0 && percent < 1 ? '<1%' : `${Math.round(percent)}%`;
}

/** An audit entry's change in one line: `perDay: none → 50000`, or the values made, for a creation. */
export function auditChange(before: unknown, after: unknown): string {
  const show = (value: unknown) => (value === null || value === undefined ? 'none' : String(value));
  const was = (before ?? {}) as Record<string, unknown>;
  const now = (after ?? {}) as Record<string, unknown>;
  if (before === null || before === undefined) return Object.entries(now).map(([field, value]) => `${field}: ${show(value)}`).join(', ');
  const fields = [...new Set([...Object.keys(was), ...Object.keys(now)])];
  return fields.map((field) => `${field}: ${show(was[field])} → ${show(now[field])}`).join(', ');
}
