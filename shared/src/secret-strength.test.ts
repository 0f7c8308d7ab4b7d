import { randomBytes } from 'node:crypto';
import { secretWeakness } from './secret-strength';

describe('secretWeakness', () => {
  it.each([
    ['a'.repeat(16), 'one character repeated'],
    ['a'.repeat(32), 'one character repeated'],
    ['abababababababab', 'repeats a pattern of 2 characters'],
    ['password1234password1234', 'repeats a pattern of 12 characters'],
    ['abcdefghijklmnopqrstuvwxyz', 'run of consecutive characters'],
    ['0123456789:;<=>?', 'run of consecutive characters'],
    ['aabbaabbccddccdd', 'fewer than 5 different characters'],
    ['AaAaBbBbCcCcDdDdAaBb', 'fewer than 5 different characters'],
  ])('when the secret is %s, then it is refused: %s', (value, reason) => {
    expect(secretWeakness(value)).toContain(reason);
  });

  it('when a secret is generated (openssl rand -base64 or -hex, or a random token of 16 characters), then it passes', () => {
    for (let i = 0; i < 200; i += 1) {
      expect(secretWeakness(randomBytes(32).toString('base64'))).toBeUndefined();
      expect(secretWeakness(randomBytes(16).toString('hex'))).toBeUndefined();
      expect(secretWeakness(randomBytes(12).toString('base64url'))).toBeUndefined();
      expect(secretWeakness(randomBytes(8).toString('hex'))).toBeUndefined();
    }
    expect(secretWeakness('a-production-admin-token-0123456789')).toBeUndefined();
  });
});
