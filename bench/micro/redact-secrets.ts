/**
 * The access log's redaction of a URL, old code against new: `node dist/bench/micro/redact-secrets.js
 * OLD_DIST` (see `app-middleware.ts` for OLD_DIST). Each call redacts the URLs of a bench's GET
 * list, a page of it and a create (nothing to redact), and one in ten calls a URL with a key in its
 * query (something to redact), as `redactSecrets` sees them in the access log.
 */
import path from 'node:path';
import { alternate, timingText } from './alternate';

type Redact = (text: string) => string;

const PLAIN = ['/v1/pets?limit=20', '/v1/pets?limit=20&cursor=eyJpZCI6MTIzfQ', '/v1/pets'];
const SECRET = '/v1/pets?limit=20&api_key=ask_live_0123456789abcdefghijklmnopqrstuv';

function redactionOf(dist: string): () => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- two builds of the same module, chosen at run time
  const { redactSecrets } = require(path.join(dist, 'shared/src/redact.js')) as { redactSecrets: Redact };
  let calls = 0;
  let kept = 0;
  return () => {
    calls += 1;
    // Fresh strings each call, as a request's URL is: no cached regexp result to reuse.
    for (const url of PLAIN) kept += redactSecrets(`${url}${calls & 1 ? '' : ' '}`.trimEnd()).length;
    if (calls % 10 === 0) kept += redactSecrets(SECRET).length;
    if (kept < 0) throw new Error('unreachable');
  };
}

const old = process.argv[2];
if (!old) {
  process.stderr.write('usage: node dist/bench/micro/redact-secrets.js OLD_DIST\n');
  process.exit(2);
}
process.stdout.write(`${timingText(alternate({ old: redactionOf(path.resolve(old)), new: redactionOf(path.resolve(__dirname, '../..')) }))}\n`);
