/**
 * How many times a header appears in a request (`req.rawHeaders`, name/value pairs in arrival
 * order). Node keeps only the first of some repeated headers (Authorization, Host), where a proxy
 * in front might keep the last: a request that sends several is ambiguous and refused.
 */
export function headerCount(rawHeaders: readonly string[], lowerCaseName: string): number {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) seen += 1;
  }
  return seen;
}
