import { ApiError } from './errors';
import { parseJsonBody } from './json-body';

const refusal = (text: string) => {
  try {
    parseJsonBody(Buffer.from(text));
  } catch (error) {
    return { code: (error as ApiError).code, message: (error as ApiError).message };
  }
  throw new Error('expected a refusal');
};

describe('parseJsonBody', () => {
  it('when valid JSON nests thousands of levels deep (16 KiB), then 400 invalid_body says so, not that it is invalid JSON', () => {
    const deep = '['.repeat(8_000) + ']'.repeat(8_000);
    expect(() => JSON.parse(deep) as unknown).not.toThrow(); // valid JSON indeed
    expect(refusal(deep)).toEqual({ code: 'invalid_body', message: 'The request body nests arrays or objects too deeply.' });
    expect(refusal(`{"name":${'['.repeat(8_000)}${']'.repeat(8_000)}}`)).toEqual({ code: 'invalid_body', message: 'The request body nests arrays or objects too deeply.' });
  });

  it('when JSON is invalid, or valid and moderately nested, then malformed_json, or the value', () => {
    expect(refusal('{"name": ')).toEqual({ code: 'malformed_json', message: 'The request body is not valid JSON.' });
    expect(parseJsonBody(Buffer.from('[[[[[[[[[[1]]]]]]]]]]'), 'a value')).toEqual([[[[[[[[[[1]]]]]]]]]]);
  });
});

describe('parseJsonBody and text that is not Unicode', () => {
  it('when a field holds a lone surrogate, then 400 invalid_body names the field', () => {
    expect(refusal('{"name":"\\ud800","categoryId":1}')).toEqual({ code: 'invalid_body', message: 'name holds a string that is not valid Unicode (a lone surrogate).' });
    expect(refusal('{"categoryId":1,"name":"Rex\\udfff"}')).toEqual({ code: 'invalid_body', message: 'name holds a string that is not valid Unicode (a lone surrogate).' });
  });

  it('when the body itself or a field name is a lone surrogate, then 400 invalid_body says it of the body', () => {
    expect(refusal('"\\ud800"')).toEqual({ code: 'invalid_body', message: 'The request body holds a string that is not valid Unicode (a lone surrogate).' });
    expect(refusal('{"\\ud800":1}')).toEqual({ code: 'invalid_body', message: 'The request body holds a string that is not valid Unicode (a lone surrogate).' });
  });
});
