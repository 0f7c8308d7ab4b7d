/**
 * Takes every `name VALUE` pair out of `args` (the bench tools' command lines), in order: what is
 * left are the positional arguments. A name given last, without a value, takes ''.
 */
export function takeOption(args: string[], name: string): string[] {
  const values: string[] = [];
  for (let i = args.indexOf(name); i >= 0; i = args.indexOf(name)) values.push(args.splice(i, 2)[1] ?? '');
  return values;
}
