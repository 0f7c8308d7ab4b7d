import { clientNamesOf, countsOfClients, monitorLine, type CommandCounts } from './redis-monitor';

describe('monitorLine', () => {
  it('when a client sent the command, then its name and the client, not from a script', () => {
    expect(monitorLine('+1795738978.984966 [0 127.0.0.1:41234] "EVALSHA" "abc" "1" "{gw}:x"')).toEqual({ command: 'evalsha', client: '127.0.0.1:41234', inScript: false });
  });

  it('when a script ran it, in any database, then its name, from a script', () => {
    expect(monitorLine('+1795738978.984966 [1 lua] "HMGET" "{animal-store:webhooks}:webhooks:meta" "paused"')).toEqual({ command: 'hmget', client: 'lua', inScript: true });
  });

  it('when the line is not a monitored command (the +OK, an error), then nothing', () => {
    expect([monitorLine('+OK'), monitorLine('-ERR unknown'), monitorLine('')]).toEqual([undefined, undefined, undefined]);
  });
});

describe('clientNamesOf', () => {
  it('when CLIENT LIST names some clients, then each address has its name, the unnamed an empty one', () => {
    const list = [
      'id=3 addr=127.0.0.1:5000 laddr=127.0.0.1:6379 fd=8 name=animal-store:requests age=2 idle=0 flags=N db=0 cmd=evalsha',
      'id=4 addr=127.0.0.1:5001 laddr=127.0.0.1:6379 fd=9 name= age=2 idle=0 flags=N db=0 cmd=client|list',
      '',
    ].join('\n');
    expect([...clientNamesOf(list)]).toEqual([
      ['127.0.0.1:5000', 'animal-store:requests'],
      ['127.0.0.1:5001', ''],
    ]);
  });
});

describe('countsOfClients', () => {
  it('when several clients sent commands, then only those whose name is accepted are added up, a client of no known name as unnamed', () => {
    const byClient = new Map<string, CommandCounts>([
      ['a:1', { sent: { evalsha: 2 }, inScripts: { get: 4 } }],
      ['a:2', { sent: { evalsha: 1 }, inScripts: { get: 2, incr: 1 } }],
      ['b:1', { sent: { bzpopmin: 1 }, inScripts: {} }],
      ['gone:1', { sent: { ping: 1 }, inScripts: {} }],
    ]);
    const names = new Map([
      ['a:1', 'requests'],
      ['a:2', 'requests'],
      ['b:1', 'jobs'],
    ]);
    expect(countsOfClients(byClient, names, (name) => name === 'requests')).toEqual({ sent: { evalsha: 3 }, inScripts: { get: 6, incr: 1 } });
    expect(countsOfClients(byClient, names, (name) => name === '')).toEqual({ sent: { ping: 1 }, inScripts: {} });
  });
});
