import { randomBytes } from 'node:crypto';
import { MAX_PASSWORD_LENGTH, checkEmail, checkNewPassword, latinLookAlike, legacyEmail, logInEmails } from './credential-rules';

describe('emails', () => {
  it('when an email has spaces around it or capitals, then it is trimmed and lower-cased', () => {
    expect(checkEmail(' Ann.Lee@Example.COM \t')).toEqual({ ok: true, value: 'ann.lee@example.com' });
  });

  it.each([
    ['full-width letters', '\uff56ictim@example.com', 'victim@example.com'],
    ['a full-width @', 'victim\uff20example.com', 'victim@example.com'],
    ['a trailing dot on the domain', 'victim@example.com.', 'victim@example.com'],
    ['two trailing dots on the domain', 'victim@example.org..', 'victim@example.org'],
    ['trailing ideographic full stops on the domain', 'victim@example.org\u3002\u3002', 'victim@example.org'],
    ['an internationalised domain', 'ann@B\u00fccher.example', 'ann@xn--bcher-kva.example'],
    ['the same domain, its letter decomposed', 'ann@bu\u0308cher.example', 'ann@xn--bcher-kva.example'],
    ['a domain already in punycode', 'ann@XN--BCHER-KVA.example', 'ann@xn--bcher-kva.example'],
  ])('when an email has %s, then it is the one address that prints alike', (_label, raw, canonical) => {
    expect(checkEmail(raw)).toEqual({ ok: true, value: canonical });
  });

  it.each([
    ['empty', '', 'Enter your email address.'],
    ['only white space', '   ', 'Enter your email address.'],
    ['without @', 'ann', 'like name@example.com'],
    ['without a dot in the domain', 'ann@example', 'like name@example.com'],
    ['with two @', 'ann@@example.com', 'like name@example.com'],
    ['with a space', 'ann lee@example.com', 'like name@example.com'],
    ['with a control character', 'ann@exa\u0000mple.com', 'not a valid domain name'],
    ['with a zero-width space', 'vic\u200btim@example.com', 'invisible character'],
    ['with a zero-width joiner in the domain', 'victim@exam\u200dple.com', 'invisible character'],
    ['with a soft hyphen', 'vic\u00adtim@example.com', 'invisible character'],
    ['with a right-to-left override', 'victim@\u202eexample.com', 'invisible character'],
    ['with a byte-order mark inside', 'vic\ufefftim@example.com', 'invisible character'],
    ['with a variation selector', 'victim\uFE0F@example.org', 'invisible character'],
    ['with a combining grapheme joiner', 'vic\u034Ftim@example.org', 'invisible character'],
    ['with a Hangul filler', 'victim\u3164@example.org', 'invisible character'],
    ['with a half-width Hangul filler', 'victim\uFFA0@example.org', 'invisible character'],
    ['with a Hangul choseong filler', 'vic\u115Ftim@example.org', 'invisible character'],
    ['with a Hangul jungseong filler', 'vic\u1160tim@example.org', 'invisible character'],
    ['with a tag character', 'victim\u{E0041}@example.org', 'invisible character'],
    ['with a domain IDNA refuses', 'ann@exa%mple.com', 'not a valid domain name'],
    ['262 characters long', `${'a'.repeat(250)}@example.com`, 'longer than 254'],
    ['Latin with a Cyrillic look-alike', 'v\u0456ctim@example.com', 'mixes letters of different alphabets (Latin and Cyrillic)'],
    ['Latin with a Greek look-alike', 'r\u03bfot@example.com', 'mixes letters of different alphabets (Latin and Greek)'],
    ['Latin with a Coptic look-alike', 'vi\u2c9fla@example.com', 'mixes letters of different alphabets (Latin and Coptic)'],
  ])('when the email is %s, then it is refused saying so', (_label, raw, message) => {
    const checked = checkEmail(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.message).toContain(message);
  });

  it.each([
    ['one word in Cyrillic', '\u0438\u0432\u0430\u043d@example.com'],
    ['one word in Greek with digits and a dot', '\u03bd\u03af\u03ba\u03b7.2024@example.com'],
    ['Latin beside letters that pass for none of it', 'li.\u674e@example.com'],
    ['Latin letters with an accent', 'ren\u00e9e@example.com'],
  ])('when the part before @ is %s, then it is accepted: only look-alike alphabets may not mix', (_label, raw) => {
    expect(checkEmail(raw)).toEqual({ ok: true, value: raw });
  });

  it.each([
    ['Cyrillic letters that each print as a Latin one', '\u0430\u04cf\u0456\u0441\u0435.2@example.com', 'alice.2@example.com'],
    ['Greek letters that each print as a Latin one', '\u03bd\u03b9\u03ba\u03bf@example.com', 'viko@example.com'],
  ])('when the part before @ is made only of %s, then latinLookAlike gives the Latin address it prints as', (_label, email, latin) => {
    expect(checkEmail(email)).toEqual({ ok: true, value: email });
    expect(latinLookAlike(email)).toBe(latin);
  });

  it.each([
    ['a Latin address', 'alice@example.com'],
    ['a Cyrillic name with a letter that prints as no Latin one', '\u0435\u0433\u043e\u0440@example.ru'],
    ['only digits', '2024@example.com'],
  ])('when the part before @ is %s, then latinLookAlike gives nothing', (_label, email) => {
    expect(latinLookAlike(email)).toBeUndefined();
  });

  it('when an address mixing look-alike alphabets logs in, then it is looked up (an account may predate the rule), only sign-up refuses it', () => {
    expect(logInEmails('V\u0456ctim@example.com')).toEqual({ ok: true, value: ['v\u0456ctim@example.com'] });
  });

  it('when an account was made before emails were normalised this way, then log-in also looks it up in the form it was stored in', () => {
    expect(legacyEmail(' \uff56ictim@Example.com. ')).toBe('\uff56ictim@example.com.');
    expect(logInEmails('\uff56ictim@Example.com.')).toEqual({ ok: true, value: ['victim@example.com', '\uff56ictim@example.com.'] });
    expect(logInEmails('ann@example.com')).toEqual({ ok: true, value: ['ann@example.com'] });
    expect(logInEmails('vic\u200btim@example.com')).toEqual({ ok: true, value: ['vic\u200btim@example.com'] });
    expect(logInEmails('ann').ok).toBe(false);
  });
});

describe('new passwords', () => {
  it.each([
    ['10 random characters', 'kq8vzm3pwt', true],
    ['9 characters', '123456789', false],
    ['at the maximum length', randomBytes(96).toString('base64'), true],
    ['over the maximum length', 'x'.repeat(MAX_PASSWORD_LENGTH + 1), false],
    ['a common one', 'Password123', false],
    ['a common one with the usual swaps', 'P@ssw0rd123', false],
    ['one from the maintained list', 'qwerty1234', false],
    ['one character repeated', 'aaaaaaaaaa', false],
    ['a run of digits', '0123456789', false],
    ...['Password2026', 'Passw0rd!!', 'Qwerty123!', 'Summer2024!', 'Welcome123!', 'letmein2024', '0987654321', 'asdfghjkl;', 'Animalstore1'].map(
      (password) => [`${password} (issue 24's review)`, password, false] as [string, string, boolean],
    ),
    ['ten spaces', ' '.repeat(10), false],
    ['only invisible characters', '\u200b'.repeat(12), false],
    ['only control characters', '\u0001'.repeat(12), false],
    ['the email address', 'ann@example.com', false],
    ['the email address in capitals', 'ANN@EXAMPLE.COM', false],
    ['not ASCII', 'ünïcödé-pässwörd', true],
    ['a passphrase', 'correct horse battery staple', true],
  ])('when a new password is %s, then it is accepted: %s', (_label, password, accepted) => {
    expect(checkNewPassword(password, 'ann@example.com').ok).toBe(accepted);
  });

  it('when a password is too short, only blank, or easy to guess, then the message says which and how to make a good one', () => {
    expect(checkNewPassword('abc', 'ann@example.com')).toEqual({ ok: false, message: 'The password must have at least 10 characters.' });
    expect(checkNewPassword(' '.repeat(10), 'ann@example.com')).toEqual({ ok: false, message: 'The password must not be only spaces or invisible characters.' });
    const repeated = checkNewPassword('a'.repeat(10), 'ann@example.com');
    expect(repeated.ok).toBe(false);
    if (!repeated.ok) {
      expect(repeated.message).toMatch(/^The password is too easy to guess \(about 10\^\d guesses would find it, fewer than the 10\^9 required: Repeated characters like "aaa" are easy to guess\): choose a longer passphrase/);
    }
  });
});
