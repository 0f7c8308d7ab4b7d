/**
 * HTML built on the server with one rule: every interpolated value is escaped, unless it is
 * already `Html` (made by this tag). Nothing a user typed can become markup.
 */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

type Fragment = Html | string | number | null | undefined | false | readonly Fragment[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function render(value: Fragment): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Fragment[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Html(out);
}
