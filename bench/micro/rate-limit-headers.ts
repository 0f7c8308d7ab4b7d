/**
 * The rate-limit headers of a response, old code against new: `node
 * dist/bench/micro/rate-limit-headers.js OLD_DIST` (see `app-middleware.ts` for OLD_DIST). Each
 * call builds the headers of one accepted keyed request (two windows), as the limiter stage does.
 */
import path from 'node:path';
import { alternate, timingText } from './alternate';

type Headers = (decision: object, nowMs: number) => Record<string, string>;

function headersOf(dist: string): () => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- two builds of the same module, chosen at run time
  const { rateLimitHeaders } = require(path.join(dist, 'gateway/src/limits/headers.js')) as { rateLimitHeaders: Headers };
  const now = Date.now();
  return () => {
    rateLimitHeaders(
      {
        outcome: 'allowed',
        windows: [
          { name: 'minute', limit: 600, remaining: 420, resetAtMs: now + 30_000, windowSeconds: 60 },
          { name: 'day', limit: 100_000, remaining: 99_000, resetAtMs: now + 3_600_000, windowSeconds: 86_400 },
        ],
      },
      now,
    );
  };
}

const old = process.argv[2];
if (!old) {
  process.stderr.write('usage: node dist/bench/micro/rate-limit-headers.js OLD_DIST\n');
  process.exit(2);
}
process.stdout.write(`${timingText(alternate({ old: headersOf(path.resolve(old)), new: headersOf(path.resolve(__dirname, '../..')) }))}\n`);
