import { monitorLine } from './redis-monitor';

describe('monitorLine', () => {
  it('when a client sent the command, then its name, not from a script', () => {
    expect(monitorLine('+1795738978.984966 [0 127.0.0.1:41234] "EVALSHA" "abc" "1" "{gw}:x"')).toEqual({ command: 'evalsha', inScript: false });
  });

  it('when a script ran it, in any database, then its name, from a script', () => {
    expect(monitorLine('+1795738978.984966 [1 lua] "HMGET" "{animal-store:webhooks}:webhooks:meta" "paused"')).toEqual({ command: 'hmget', inScript: true });
  });

  it('when the line is not a monitored command (the +OK, an error), then nothing', () => {
    expect([monitorLine('+OK'), monitorLine('-ERR unknown'), monitorLine('')]).toEqual([undefined, undefined, undefined]);
  });
});
