import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GATEWAY_NODE_FLAGS } from './node-flags';

describe('the gateway’s Node flags', () => {
  it('when started with npm run start:gateway, then it gets the same flags as npm start and the bench (GATEWAY_NODE_FLAGS)', () => {
    const scripts = (JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['start:gateway']).toContain(`node ${GATEWAY_NODE_FLAGS.join(' ')} dist/gateway/src/main.js`);
  });

  it('when read, then each is a flag Node accepts in NODE_OPTIONS too (the way a deployment sets them, docs/scaling.md)', () => {
    const allowed = process.allowedNodeEnvironmentFlags;
    for (const flag of GATEWAY_NODE_FLAGS) expect({ flag, allowed: allowed.has(flag.replace(/=.*/, '')) }).toEqual({ flag, allowed: true });
  });
});
