/**
 * The access line written without pino, old code against new: `node
 * dist/bench/micro/access-line.js OLD_DIST` (see `app-middleware.ts` for OLD_DIST). Each call
 * makes the line of one served request (a request id made by the gateway, a plain URL, an IPv4
 * address), as `accessLineJson` does for every request.
 */
import path from 'node:path';
import pino from 'pino';
import { alternate, timingText } from './alternate';

type AccessLineJson = (logger: pino.Logger, level: number, reqId: string, method: string, url: string, status: number, ms: number, remoteAddress: string, extra: undefined, aborted: boolean, msg: string) => string;

const logger = pino({ name: 'gateway' }, { write: () => undefined });
/** What the lines came to, kept so that no call's work can be dropped as unused. */
const written = { characters: 0 };

function lineOf(dist: string): () => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- two builds of the same module, chosen at run time
  const { accessLineJson } = require(path.join(dist, 'shared/src/access-log.js')) as { accessLineJson: AccessLineJson };
  return () => {
    written.characters += accessLineJson(logger, 30, 'c0ffee00-1234-4abc-8def-0123456789ab', 'GET', '/v1/pets?limit=20', 200, 1.4, '127.0.0.1', undefined, false, 'request completed').length;
  };
}

const old = process.argv[2];
if (!old) {
  process.stderr.write('usage: node dist/bench/micro/access-line.js OLD_DIST\n');
  process.exit(2);
}
process.stdout.write(`${timingText(alternate({ old: lineOf(path.resolve(old)), new: lineOf(path.resolve(__dirname, '../..')) }))}\n`);
