import { parseRfc3339 } from './rfc3339';

describe('parseRfc3339', () => {
  it.each([
    ['2030-01-31T12:00:00Z', '2030-01-31T12:00:00.000Z'],
    ['2030-01-31t12:00:00z', '2030-01-31T12:00:00.000Z'],
    ['2030-01-31T14:00:00+02:00', '2030-01-31T12:00:00.000Z'],
    ['2030-01-31T09:30:00-02:30', '2030-01-31T12:00:00.000Z'],
    ['2030-01-31T12:00:00.1234567Z', '2030-01-31T12:00:00.123Z'],
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
  ])('when %s is read, then it is the instant %s', (text, iso) => {
    expect(new Date(parseRfc3339(text)!).toISOString()).toBe(iso);
  });

  it.each([
    ['a date alone', '2030-01-31'],
    ['no time zone', '2030-01-31T12:00:00'],
    ['no seconds', '2030-01-31T12:00Z'],
    ['a space for the T', '2030-01-31 12:00:00Z'],
    ['February 30', '2030-02-30T00:00:00Z'],
    ['February 29 of a common year', '2030-02-29T00:00:00Z'],
    ['month 13', '2030-13-01T00:00:00Z'],
    ['hour 24', '2030-01-31T24:00:00Z'],
    ['a leap second', '2030-12-31T23:59:60Z'],
    ['an offset of 24 hours', '2030-01-31T12:00:00+24:00'],
    ['Unix time', '1893456000'],
    ['words', 'tomorrow'],
    ['surrounding space', ' 2030-01-31T12:00:00Z'],
  ])('when %s is read, then null', (_what, text) => {
    expect(parseRfc3339(text)).toBeNull();
  });
});
