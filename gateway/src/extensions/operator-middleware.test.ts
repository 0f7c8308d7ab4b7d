import { operatorRefusal } from './operator-middleware';

describe("an operator middleware's error", () => {
  it('when it has a 4xx status and a string code, then it is answered with its own status, code and message', () => {
    const error = Object.assign(new Error('Your address may not use this account.'), { status: 403, code: 'address_not_allowed' });
    expect(operatorRefusal(error)?.toBody()).toEqual({ code: 'address_not_allowed', message: 'Your address may not use this account.', status: 403 });
  });

  it.each([
    ['a plain Error', new Error('boom')],
    ['a 5xx status', Object.assign(new Error('x'), { status: 503, code: 'down' })],
    ['a 3xx status', Object.assign(new Error('x'), { status: 302, code: 'moved' })],
    ['a status given as text', Object.assign(new Error('x'), { status: '403', code: 'no' })],
    ['a 4xx status without a code', Object.assign(new Error('x'), { status: 403 })],
    ['a numeric code', Object.assign(new Error('x'), { status: 403, code: 42 })],
    ['an empty code', Object.assign(new Error('x'), { status: 403, code: '' })],
    ['a string', 'nope'],
  ])('when it is %s, then it is a fault, not a refusal', (_name, error) => {
    expect(operatorRefusal(error)).toBeUndefined();
  });
});
