import { NOT_ADMITTED, type PrincipalResolver } from '../../src/accounts/principal-resolver';
import type { Principal } from '../../src/accounts/types';

/**
 * What the request path makes of a key, in one call for tests: the resolver's caches (`cached`),
 * then the store (`lookUp`, always admitted) when they cannot answer. null: refused.
 */
export async function resolveKey(resolver: PrincipalResolver, apiKey: string): Promise<Principal | null> {
  const answer = resolver.cached(apiKey);
  if (answer.state === 'valid') return answer.principal;
  if (answer.state === 'refused') return null;
  const result = await resolver.lookUp(apiKey);
  return result === NOT_ADMITTED ? null : result;
}
