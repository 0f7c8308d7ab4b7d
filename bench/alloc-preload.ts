/**
 * Loaded with `--require` into a front under `bench/alloc.ts`: V8's sampling heap profiler, counting
 * objects the collector has already freed too (they are most of a request's garbage), started by
 * the first SIGUSR2 and stopped by the second, the profile written to `allocProfileFile(pid)`.
 */
import { writeFileSync } from 'node:fs';
import { writeWholeFile } from './whole-file';
import { Session } from 'node:inspector';
import os from 'node:os';
import path from 'node:path';

/** Where the process `pid` writes its profile (and, once sampling, `<file>.started`). */
export function allocProfileFile(pid: number): string {
  return path.join(os.tmpdir(), `animal-store-alloc-${pid}.heapprofile`);
}

// Only when preloaded (`--require`: no main module yet), not when `bench/alloc.ts` imports the path.
if (require.main === undefined) {
  const file = allocProfileFile(process.pid);
  const session = new Session();
  session.connect();
  let sampling = false;
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      // One sample per 512 bytes on average: fine enough to see a closure, cheap enough under load.
      const settings = { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
      session.post('HeapProfiler.startSampling', settings, () => writeFileSync(`${file}.started`, ''));
    } else {
      session.post('HeapProfiler.stopSampling', (error, result) => writeWholeFile(file, error ? '' : JSON.stringify(result.profile)));
    }
  });
}
