import { MAX_PASSWORD_LENGTH, checkEmail, checkNewPassword, normaliseEmail } from './credential-rules';

describe('credential rules', () => {
  it('when an email has spaces around it or capitals, then it is trimmed and lower-cased', () => {
    expect(normaliseEmail('  Ann.Lee@Example.COM \t')).toBe('ann.lee@example.com');
    expect(checkEmail(' Ann@Example.com ')).toEqual({ ok: true, value: 'ann@example.com' });
  });

  it.each([
    ['empty', '', 'Enter your email address.'],
    ['only white space', '   ', 'Enter your email address.'],
    ['without @', 'ann', 'like name@example.com'],
    ['without a dot in the domain', 'ann@example', 'like name@example.com'],
    ['with two @', 'ann@@example.com', 'like name@example.com'],
    ['with a space', 'ann lee@example.com', 'like name@example.com'],
    ['with a control character', 'ann@exa\u0000mple.com', 'like name@example.com'],
    ['262 characters long', `${'a'.repeat(250)}@example.com`, 'longer than 254'],
  ])('when the email is %s, then it is refused saying so', (_label, raw, message) => {
    const checked = checkEmail(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.message).toContain(message);
  });

  it.each([
    ['10 characters', 'short9char', true],
    ['9 characters', '123456789', false],
    ['at the maximum length', 'x'.repeat(MAX_PASSWORD_LENGTH), true],
    ['over the maximum length', 'x'.repeat(MAX_PASSWORD_LENGTH + 1), false],
    ['a common one', 'Password123', false],
    ['the email address', 'ann@example.com', false],
    ['not ASCII', 'ünïcödé-pässwörd', true],
  ])('when a new password is %s, then it is accepted: %s', (_label, password, accepted) => {
    expect(checkNewPassword(password, 'ann@example.com').ok).toBe(accepted);
  });

  it('when a password is too short, then the message gives the minimum', () => {
    expect(checkNewPassword('abc', 'ann@example.com')).toEqual({ ok: false, message: 'The password must have at least 10 characters.' });
  });
});
