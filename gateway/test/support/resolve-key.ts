import { NOT_ADMITTED, type PrincipalResolver } from '../../src/accounts/principal-resolver';
import type { Principal } from '../../src/accounts/types';
import { hashApiKey, parseApiKey } from '../../src/keys/api-key';

/**
 * What the request path (the identify stage) makes of a key, in one call for tests: refused when
 * malformed, else its hash asked of the resolver's caches (`cached`), then of the store (`lookUp`,
 * always admitted) when they cannot answer. null: refused.
 */
export async function resolveKey(resolver: PrincipalResolver, apiKey: string): Promise<Principal | null> {
  const parsed = parseApiKey(apiKey);
  if (!parsed.ok) return null;
  const hash = hashApiKey(parsed.key);
  const answer = resolver.cached(hash);
  if (answer.state === 'valid') return answer.principal;
  if (answer.state === 'refused') return null;
  const result = await resolver.lookUp(hash);
  return result === NOT_ADMITTED ? null : result;
}
