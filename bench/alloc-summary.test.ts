import { summariseAlloc, type HeapProfile } from './alloc-summary';

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });

describe('what a request allocates (summariseAlloc)', () => {
  it('when samples sit under our code and under libraries, then it gives bytes per request in all, by allocating function, and by the nearest function of ours', () => {
    const profile: HeapProfile = {
      head: {
        id: 1,
        callFrame: frame('(root)', ''),
        children: [
          {
            id: 2,
            callFrame: frame('handle', '/work/main/dist/gateway/src/app.js'),
            children: [{ id: 3, callFrame: frame('write', '/work/main/node_modules/pino/lib/proto.js'), children: [] }],
          },
          { id: 4, callFrame: frame('parserOnHeadersComplete', 'node:_http_common'), children: [] },
        ],
      },
      samples: [
        { size: 600, nodeId: 3 },
        { size: 200, nodeId: 2 },
        { size: 200, nodeId: 4 },
      ],
    };
    expect(summariseAlloc(profile, 10)).toEqual({
      bytesPerRequest: 100,
      byFunction: [
        ['write node_modules/pino/lib/proto.js:10', 60],
        ['handle dist/gateway/src/app.js:10', 20],
        ['parserOnHeadersComplete node:_http_common:10', 20],
      ],
      byOurs: [
        ['handle dist/gateway/src/app.js:10', 80],
        ['(none of ours)', 20],
      ],
    });
  });
});
