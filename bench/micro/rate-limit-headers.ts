/**
 * The rate-limit headers of a response, old code against new: `node
 * dist/bench/micro/rate-limit-headers.js OLD_DIST` (see `app-middleware.ts` for OLD_DIST). Each
 * call builds the headers of one accepted keyed request (two windows) and sets them on a response,
 * as the limiter stage does: `old` with the stage's loop before issue 29 (`Object.entries`), `new`
 * with its loop after (`for…in`).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { alternate, timingText } from './alternate';

type Headers = (decision: object, nowMs: number) => Record<string, string>;

const response = new ServerResponse(new IncomingMessage({} as never));
const apply = {
  entries: (headers: Record<string, string>) => {
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  },
  forIn: (headers: Record<string, string>) => {
    for (const name in headers) response.setHeader(name, headers[name]!);
  },
};

function headersOf(dist: string, applied: (headers: Record<string, string>) => void): () => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- two builds of the same module, chosen at run time
  const { rateLimitHeaders } = require(path.join(dist, 'gateway/src/limits/headers.js')) as { rateLimitHeaders: Headers };
  const now = Date.now();
  return () => {
    const headers = rateLimitHeaders(
      {
        outcome: 'allowed',
        windows: [
          { name: 'minute', limit: 600, remaining: 420, resetAtMs: now + 30_000, windowSeconds: 60 },
          { name: 'day', limit: 100_000, remaining: 99_000, resetAtMs: now + 3_600_000, windowSeconds: 86_400 },
        ],
      },
      now,
    );
    applied(headers);
  };
}

const old = process.argv[2];
if (!old) {
  process.stderr.write('usage: node dist/bench/micro/rate-limit-headers.js OLD_DIST\n');
  process.exit(2);
}
process.stdout.write(`${timingText(alternate({ old: headersOf(path.resolve(old), apply.entries), new: headersOf(path.resolve(__dirname, '../..'), apply.forIn) }))}\n`);
