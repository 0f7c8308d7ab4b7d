import { randomBytes } from 'node:crypto';
import { PASSWORD_MIN_GUESSES_LOG10, SECRET_MIN_GUESSES_LOG10, guessability, passwordWeakness, secretWeakness } from './secret-strength';

describe('secretWeakness', () => {
  // Issue 24's review: each started a production gateway or pets-service; the old rules refused only exact patterns.
  it.each([
    '0123456789abcdef',
    '1234567890123456',
    'Password12345678',
    'changeme-changeme',
    'adminadminadmin1',
    'qwertyuiopasdfgh',
    'admin-token-2024',
    'qwertyuiopasdfghjklzxcvbnm123456',
    'a'.repeat(32),
    'abababababababab',
    'abcdefghijklmnopqrstuvwxyz',
    'password1234password1234',
    'correct horse battery staple',
  ])('when the secret is %s, then it is refused with the estimate, never the value', (value) => {
    const weakness = secretWeakness(value);
    expect(weakness).toContain(`fewer than the 10^${SECRET_MIN_GUESSES_LOG10} required`);
    expect(weakness).not.toContain(value);
  });

  it('when a secret is generated (openssl rand -base64 32 or -hex 32, or 16 random bytes), then it passes', () => {
    for (let i = 0; i < 20; i += 1) {
      expect(secretWeakness(randomBytes(32).toString('base64'))).toBeUndefined();
      expect(secretWeakness(randomBytes(32).toString('hex'))).toBeUndefined();
      expect(secretWeakness(randomBytes(16).toString('hex'))).toBeUndefined();
      expect(secretWeakness(randomBytes(24).toString('base64url'))).toBeUndefined();
    }
  });

  it('when a secret is a long passphrase of unrelated words, then it passes', () => {
    expect(secretWeakness('my dog likes long walks by the river at dawn')).toBeUndefined();
  });
});

describe('passwordWeakness', () => {
  // Issue 24's review: each was accepted at sign-up.
  it.each(['Password2026', 'Passw0rd!!', 'Qwerty123!', 'Summer2024!', 'Welcome123!', 'letmein2024', '0987654321', 'asdfghjkl;', 'Animalstore1'])(
    'when the password is %s, then it is refused with the estimate',
    (password) => {
      expect(passwordWeakness(password, 'ann@example.com')).toContain(`fewer than the 10^${PASSWORD_MIN_GUESSES_LOG10} required`);
    },
  );

  it('when the password is built on the email, then it is refused', () => {
    expect(passwordWeakness('xqvorblaxwynd', 'xqvorblaxwynd@example.com')).toBeDefined();
    expect(passwordWeakness('xqvorblaxwynd', 'ann@example.com')).toBeUndefined();
  });

  it.each(['blue tables sing loudly', 'correct horse battery staple', 'ünïcödé-pässwörd', 'kq8vzm3pwt'])('when the password is %s (a passphrase or random), then it passes', (password) => {
    expect(passwordWeakness(password, 'ann@example.com')).toBeUndefined();
  });

  it('when a password is long and crafted for the estimator (swaps, repeats), then only its first 64 characters are estimated', () => {
    expect(passwordWeakness('p@$$w0rd'.repeat(16), 'ann@example.com')).toBeDefined();
    expect(passwordWeakness(`${'a'.repeat(64)}${randomBytes(32).toString('base64')}`, 'ann@example.com')).toBeDefined();
  });
});

describe('guessability', () => {
  it('when a value leans on a context word, then it counts as known', () => {
    expect(guessability('zanzibarquokka', 9)).toBeUndefined();
    expect(guessability('zanzibarquokka', 9, ['zanzibar', 'quokka'])).toBeDefined();
  });
});
