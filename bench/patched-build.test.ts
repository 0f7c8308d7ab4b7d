import { patchedText } from './patched-build';

describe('patchedText', () => {
  const patch = { file: 'a.js', find: 'const handle = (req, res) => {', replace: 'const handle = (req, res) => app(req, res);' };

  it('replaces the text it names, once, taking the replacement literally', () => {
    expect(patchedText('x;\nconst handle = (req, res) => {\n', patch)).toBe('x;\nconst handle = (req, res) => app(req, res);\n');
    expect(patchedText('a b', { file: 'a.js', find: 'b', replace: "'$&'" })).toBe("a '$&'");
  });

  it('refuses to patch code the patch no longer fits: the text missing or there twice', () => {
    expect(() => patchedText('const other = 1;', patch)).toThrow("a.js: \"const handle = (req, res) => {\" occurs 0 times, not once: the patch no longer fits the code");
    expect(() => patchedText(`${patch.find}\n${patch.find}`, patch)).toThrow('occurs 2 times, not once');
  });
});
