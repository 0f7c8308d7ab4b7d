import { HasherBusyError, PasswordHasher, SCRYPT_COST } from './passwords';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher();

  it('when a password is hashed, then the hash names scrypt and its cost, is salted, and verifies only that password', async () => {
    const first = await hasher.hash('correct horse battery');
    const second = await hasher.hash('correct horse battery');
    expect(first).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    expect(first).not.toContain('correct horse');
    expect(await hasher.verify('correct horse battery', first)).toBe(true);
    expect(await hasher.verify('correct horse batterY', first)).toBe(false);
    expect(await hasher.verify('', first)).toBe(false);
  });

  it('when a password is typed in another Unicode composition, then it is the same password (NFKC)', async () => {
    const composed = await hasher.hash('caf\u00e9-au-lait');
    expect(await hasher.verify('cafe\u0301-au-lait', composed)).toBe(true);
  });

  it('when the stored hash was made with another cost, then it still verifies (the cost is read from it)', async () => {
    const cheap = new PasswordHasher({ cost: { log2N: 10, r: 8, p: 1 } });
    const stored = await cheap.hash('an older password');
    expect(stored.startsWith('$scrypt$ln=10,r=8,p=1$')).toBe(true);
    expect(await hasher.verify('an older password', stored)).toBe(true);
  });

  it('when the stored value is not a hash this module wrote, then nothing verifies and nothing throws', async () => {
    for (const stored of ['', 'plain-text', '$scrypt$ln=30,r=8,p=1$c2FsdA$aGFzaA', '$bcrypt$whatever']) {
      expect(await hasher.verify('plain-text', stored)).toBe(false);
    }
  });

  it('when an unknown email is checked, then the work of a real verification is still done', async () => {
    await hasher.verifyAgainstNothing('warm up the dummy hash');
    // CPU time, not wall time: scrypt runs on libuv's threads, which process.cpuUsage() counts, and
    // a busy machine stretches the wall clock of one call and not the other, but not their CPU.
    const cpuMsOf = async (work: () => Promise<unknown>) => {
      const before = process.cpuUsage();
      for (let i = 0; i < 3; i += 1) await work();
      const { user, system } = process.cpuUsage(before);
      return (user + system) / 1e3;
    };
    const realMs = await cpuMsOf(() => hasher.hash('one real hash for scale'));
    const nothingMs = await cpuMsOf(async () => expect(await hasher.verifyAgainstNothing('anything at all')).toBe(false));
    expect(nothingMs).toBeGreaterThan(realMs * 0.5);
  });

  it('when more hashes are asked for than may wait, then the excess is refused at once and the rest complete', async () => {
    const small = new PasswordHasher({ cost: SCRYPT_COST, maxConcurrent: 1, maxWaiting: 2 });
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => small.hash(`password number ${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.reason).toBeInstanceOf(HasherBusyError);
    expect(await small.hash('after the rush')).toMatch(/^\$scrypt\$/);
  });
});
