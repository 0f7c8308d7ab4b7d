import { logFormatFor } from './logger';

describe('the log format', () => {
  it.each([
    [false, true, 'pretty'],
    [false, false, 'json'],
    [true, true, 'json'],
    [true, false, 'json'],
  ] as const)('when production is %s and stdout is a terminal is %s, then the lines are %s', (production, terminal, format) => {
    expect(logFormatFor({ production, terminal })).toBe(format);
  });
});
