import { InvalidArgumentError } from 'commander';
import { durationParser, integerParser, orList, quotaFields, quotaParser } from './values';

describe('CLI option values', () => {
  it('when quotas are given, then digits become numbers and "none" clears an override where allowed', () => {
    expect(quotaFields({ perMinute: quotaParser('--per-minute', true)('none'), perDay: quotaParser('--per-day', true)('42') })).toEqual({ perMinute: null, perDay: 42 });
    expect(quotaFields({})).toEqual({});
    expect(() => quotaParser('--per-day', false)('none')).toThrow(new InvalidArgumentError('--per-day must be a positive integer, got "none"'));
  });

  it.each([
    ['90', 90],
    ['90s', 90],
    ['15m', 900],
    ['24h', 86_400],
    ['7d', 604_800],
  ])('when a duration is %s, then %i seconds', (raw, seconds) => {
    expect(durationParser('--grace-period')(raw)).toBe(seconds);
  });

  it('when a duration or a bounded integer is malformed, then the message names the option', () => {
    expect(() => durationParser('--grace-period')('1w')).toThrow(/^--grace-period must be a number of seconds/);
    expect(() => integerParser('--ttl', 1, 300)('0')).toThrow('--ttl must be an integer from 1 to 300, got "0"');
    expect(integerParser('--ttl', 1, 300)('300')).toBe(300);
  });

  it('when words are listed, then the last is joined with "or"', () => {
    expect(orList(['free', 'pro', 'business'])).toBe('free, pro or business');
    expect(orList(['free'])).toBe('free');
  });
});
