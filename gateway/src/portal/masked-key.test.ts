import { generateApiKey } from '../keys/api-key';
import { maskApiKey } from './masked-key';

describe('maskApiKey', () => {
  it('when a key is masked, then only its prefix and last four characters remain', () => {
    const key = generateApiKey();
    const masked = maskApiKey(key);
    expect(masked).toBe(`${key.slice(0, key.lastIndexOf('_') + 1)}…${key.slice(-4)}`);
    expect(masked).toMatch(/^ask_[a-z]+_…[0-9A-Za-z]{4}$/);
  });
});
