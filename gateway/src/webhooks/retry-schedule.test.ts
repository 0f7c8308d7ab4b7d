import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './retry-schedule';

describe('parseRetrySchedule', () => {
  it('when the default, then eight delays from 5 s to 10 h', () => {
    expect(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)).toEqual([5_000, 30_000, 120_000, 600_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000]);
  });

  it('when milliseconds and spaces, then they are read', () => {
    expect(parseRetrySchedule('100ms, 200ms')).toEqual([100, 200]);
  });

  it.each(['', '5', '5x', '0s', '-1s', '25h', '1.5s', '5s,,6s'])('when "%s", then it is refused with a sentence', (raw) => {
    expect(typeof parseRetrySchedule(raw)).toBe('string');
  });
});
