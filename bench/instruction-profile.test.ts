import { nameAt, named, parseAnnotation, parsePerfMap } from './instruction-profile';

describe('the instruction profile', () => {
  const map = parsePerfMap(['d16b700 100 JS:*handle /x/http-server.js:26:20', 'not a line', 'd16b300 80 JS:^identify /x/identify.js:65:12', ''].join('\n'));

  it('reads V8\'s map of compiled code, sorted by address', () => {
    expect(map).toEqual([
      { start: 0xd16b300, end: 0xd16b380, name: 'JS:^identify /x/identify.js:65:12' },
      { start: 0xd16b700, end: 0xd16b800, name: 'JS:*handle /x/http-server.js:26:20' },
    ]);
  });

  it('names an address inside a range, and none outside every range', () => {
    expect(nameAt(map, 0xd16b300)).toBe('JS:^identify /x/identify.js:65:12');
    expect(nameAt(map, 0xd16b7ff)).toBe('JS:*handle /x/http-server.js:26:20');
    expect(nameAt(map, 0xd16b380)).toBeUndefined();
    expect(nameAt(map, 0xd16b000)).toBeUndefined();
    expect(nameAt(map, 0xd16b800)).toBeUndefined();
  });

  it('reads callgrind_annotate\'s rows and merges the addresses of one function under its name', () => {
    const rows = parseAnnotation(
      [
        '882,876,629 (100.0%)  PROGRAM TOTALS',
        '52,374,942 ( 5.93%)  ???:Builtins_LoadIC [/usr/bin/node]',
        ' 5,502,000 ( 0.62%)  ???:0x000000000d16b700 [???]',
        ' 4,770,000 ( 0.54%)  ???:0x000000000d16b740 [???]',
        ' 4,579,932 ( 0.52%)  ./string/memmove.S:__memcpy_avx_unaligned_erms [/usr/lib/libc.so.6]',
        ' 1,000 ( 0.00%)  ???:0x0000000000000010 [???]',
      ].join('\n'),
    );
    expect(rows).toHaveLength(5);
    expect(named(rows, map)).toEqual([
      { fn: 'Builtins_LoadIC', cost: 52_374_942 },
      { fn: 'JS:*handle /x/http-server.js:26:20', cost: 10_272_000 },
      { fn: '__memcpy_avx_unaligned_erms', cost: 4_579_932 },
      { fn: '0x0000000000000010', cost: 1_000 },
    ]);
  });
});
