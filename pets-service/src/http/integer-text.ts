/** Plain decimal only: `+5`, ` 5`, `05`, `1e2` or `1.0` are not what a client meant to send. */
const DECIMAL_INTEGER = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * The number a query or path value spells, or the text itself when it is not a plain
 * decimal integer, so that the schema validator reports which rule it breaks.
 */
export function integerOrText(text: string): number | string {
  return DECIMAL_INTEGER.test(text) ? Number(text) : text;
}
