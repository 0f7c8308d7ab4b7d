import { takeOption } from './take-option';

describe('takeOption', () => {
  it('takes each value of a repeated option in order and leaves the positional arguments', () => {
    const args = ['gateway-redis', '--variant', 'a', 'refused', '--variant', 'b', '--rounds', '3'];
    expect(takeOption(args, '--variant')).toEqual(['a', 'b']);
    expect(takeOption(args, '--rounds')).toEqual(['3']);
    expect(takeOption(args, '--flags')).toEqual([]);
    expect(args).toEqual(['gateway-redis', 'refused']);
  });

  it('gives an option without a value an empty one', () => {
    expect(takeOption(['--flags'], '--flags')).toEqual(['']);
  });
});
