import { ApiError } from './errors';
import type { Request, Response } from 'express';
import { parseJsonBody, requireJsonContentType } from './json-body';

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

describe('requireJsonContentType', () => {
  const check = (header: string | undefined) => {
    let passed = false;
    try {
      requireJsonContentType({ headers: header === undefined ? {} : { 'content-type': header } } as Request, {} as Response, () => {
        passed = true;
      });
    } catch (error) {
      return (error as ApiError).message;
    }
    return passed ? 'passed' : 'stopped';
  };

  it.each(['application/json', 'APPLICATION/JSON; Charset="UTF-8"', 'application/json;charset=utf8', 'application/json; profile=x'])('when Content-Type is %j, then the body is read', (header) => {
    expect(check(header)).toBe('passed');
  });

  it.each([
    [undefined, 'Content-Type is missing; send application/json.'],
    ['text/plain', 'Content-Type must be application/json.'],
    ['application/json; charset=latin1', 'The request body must be UTF-8 encoded JSON.'],
    ['application/json; charset', 'Content-Type is not a media type ("application/json; charset"); send application/json.'],
  ])('when Content-Type is %j, then 415 saying why', (header, message) => {
    expect(check(header)).toBe(message);
  });
});
