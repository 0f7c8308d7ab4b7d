import { StoreUnavailableError } from '../src/store-errors';
import { NOT_ADMITTED } from '../src/accounts/principal-resolver';
import { generateApiKey, hashApiKey } from '../src/keys/api-key';
import { useResolverOnMemoryStore, withKey } from './support/principal-resolver';

/**
 * The admission a lookup asks before it reaches the store (`lookUp`): refused, settled, shared by
 * the callers of one lookup.
 */
describe('PrincipalResolver: admission of lookups (in-process store)', () => {
  const setup = useResolverOnMemoryStore();

  it('when the admission of a lookup is refused, then NOT_ADMITTED and no store call; admitted, the store is asked', async () => {
    const { spy, service, resolver } = setup;
    const { key } = await withKey(service);
    expect(await resolver.lookUp(hashApiKey(key.key), { admit: async () => false })).toBe(NOT_ADMITTED);
    expect(spy.calls).toEqual([]);
    expect(await resolver.lookUp(hashApiKey(key.key), { admit: async () => true })).toMatchObject({ keyId: key.id });
    expect(spy.calls).toEqual(['resolveKey']);
  });

  it('when an admitted lookup ends, then its admission hears whether the key was valid (a store failure is not)', async () => {
    const { spy, service, resolver } = setup;
    const { key } = await withKey(service);
    const settled: boolean[] = [];
    const admission = { admit: async () => true, settle: (valid: boolean) => settled.push(valid) };
    await resolver.lookUp(hashApiKey(key.key), admission);
    await resolver.lookUp(hashApiKey(generateApiKey()), admission);
    spy.fail(true);
    await expect(resolver.lookUp(hashApiKey(generateApiKey()), admission)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(settled).toEqual([true, false, false]);
  });

  it('when many requests look up one key at once, then one admission is asked and one store call made for all of them', async () => {
    const { spy, service, resolver } = setup;
    const { key } = await withKey(service);
    spy.calls.length = 0;
    let admissions = 0;
    const admit = {
      admit: async () => {
        admissions++;
        await new Promise((resolve) => setTimeout(resolve, 5)); // e.g. a wait in the look-up queue
        return true;
      },
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => resolver.lookUp(hashApiKey(key.key), admit)));
    expect(results.every((r) => r !== null && r !== NOT_ADMITTED && r.keyId === key.id)).toBe(true);
    expect(admissions).toBe(1);
    expect(spy.calls).toEqual(['resolveKey']);
  });

  it("when the shared lookup's admission is refused, then each waiting caller asks its own, so no lookup goes unpaid", async () => {
    const { spy, service, resolver } = setup;
    const { key } = await withKey(service);
    spy.calls.length = 0;
    const asked: string[] = [];
    const admission = (who: string, answer: boolean) => ({
      admit: async () => {
        asked.push(who);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return answer;
      },
    });
    const [first, second, third] = await Promise.all([
      resolver.lookUp(hashApiKey(key.key), admission('first', false)),
      resolver.lookUp(hashApiKey(key.key), admission('second', true)),
      resolver.lookUp(hashApiKey(key.key), admission('third', true)),
    ]);
    expect(first).toBe(NOT_ADMITTED);
    expect(second).toMatchObject({ keyId: key.id });
    expect(third).toMatchObject({ keyId: key.id });
    expect(asked).toEqual(['first', 'second']); // the third shared the second's paid lookup
    expect(spy.calls).toEqual(['resolveKey']);
  });
});
