import fc from 'fast-check';
import { createCursorCodec } from '../src/http/cursor';
import { SECRET } from './support';

const cursors = createCursorCodec(SECRET);

describe('list cursor', () => {
  it('when a cursor was issued for an id, then it reads back as that id', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (id) => cursors.decode(cursors.encode(id)) === id));
  });

  it('when a string was not issued by this service, then it is refused', () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (text) => cursors.decode(text) === undefined));
  });

  it('when any one character of an issued cursor changes, then it is refused', () => {
    const issued = cursors.encode(1234);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    fc.assert(
      fc.property(fc.nat({ max: issued.length - 1 }), fc.constantFrom(...alphabet), (position, replacement) => {
        fc.pre(issued[position] !== replacement);
        const changed = `${issued.slice(0, position)}${replacement}${issued.slice(position + 1)}`;
        return cursors.decode(changed) === undefined;
      }),
    );
  });

  it('when another secret issued the cursor, then it is refused', () => {
    expect(cursors.decode(createCursorCodec('a-different-secret-for-the-test').encode(5))).toBeUndefined();
  });
});
