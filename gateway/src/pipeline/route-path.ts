/**
 * The request paths a route path matches as Express's router matches it (not strict): exactly,
 * or with one trailing slash. One statement, so that a stage mounted on a path and a stage that
 * lets that path through (`authorize`) agree on every request.
 */
export function requestPathsOf(path: string): readonly string[] {
  return [path, `${path}/`];
}
