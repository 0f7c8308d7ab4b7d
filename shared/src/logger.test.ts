import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { LineBatch, logFormatFor } from './logger';

describe('the log format', () => {
  it.each([
    [false, true, 'pretty'],
    [false, false, 'json'],
    [true, true, 'json'],
    [true, false, 'json'],
  ] as const)('when production is %s and stdout is a terminal is %s, then the lines are %s', (production, terminal, format) => {
    expect(logFormatFor({ production, terminal })).toBe(format);
  });
});

describe('the access log\'s line batch', () => {
  function batchOf(minLength: number): { batch: LineBatch; written: string[] } {
    const written: string[] = [];
    return { batch: new LineBatch({ write: (text: string) => written.push(text) }, minLength), written };
  }

  it('when lines gather below the batch size, then nothing is written until they reach it, and then all of them in one write, in order', () => {
    const { batch, written } = batchOf(10);
    batch.write('abc\n');
    batch.write('def\n');
    expect(written).toEqual([]);
    batch.write('ghi\n');
    expect(written).toEqual(['abc\ndef\nghi\n']);
    batch.write('jkl\n');
    expect(written).toEqual(['abc\ndef\nghi\n']);
  });

  it('when flushed, then what has gathered is written at once, and a flush with nothing gathered writes nothing', () => {
    const { batch, written } = batchOf(1024);
    batch.flush();
    batch.write('one\n');
    batch.flush();
    batch.flush();
    expect(written).toEqual(['one\n']);
  });

  it("when a pino logger writes through it to a real file, then every line arrives whole and in order once flushed", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'line-batch-'));
    const file = path.join(dir, 'access.log');
    const destination = pino.destination({ dest: file, sync: true });
    const batch = new LineBatch(destination, 512);
    const logger = pino({ name: 'gateway' }, batch);
    for (let i = 0; i < 100; i += 1) logger.info({ i }, 'request completed');
    batch.flush();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { i: number });
    expect(lines.map((line) => line.i)).toEqual([...Array(100).keys()]);
    rmSync(dir, { recursive: true, force: true });
  });
});
