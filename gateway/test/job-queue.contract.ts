import { sleep, waitFor } from '../../test/helpers/ports';
import type { Attempt, JobQueues } from '../src/jobs';

export interface JobQueueContractOptions {
  /** The backend keeps jobs across processes: two JobQueues share work, and a new one picks up pending jobs. */
  shared: boolean;
}

/**
 * The behaviour every JobQueues implementation must have, run by job-queue.test.ts (in process,
 * Redis) and job-queue-cluster.test.ts (Redis Cluster). `open` gives a JobQueues on the same backend
 * each time (replicas, restarts); the suite closes what it opened. Each test uses queues of its own.
 */
export function jobQueueContract(name: string, open: () => Promise<JobQueues>, { shared }: JobQueueContractOptions): void {
  describe(`${name} (job queue contract)`, () => {
    const opened: JobQueues[] = [];
    let queues = 0;
    const fresh = () => `contract-${Date.now()}-${++queues}`;
    const openQueues = async () => {
      const jobs = await open();
      opened.push(jobs);
      return jobs;
    };

    afterEach(async () => {
      for (const jobs of opened.splice(0)) await jobs.close();
    });

    it('when jobs are added, then each runs once, with attempt 1 final when no retry is scheduled', async () => {
      const jobs = await openQueues();
      const seen: Array<[number, Attempt]> = [];
      const queue = jobs.queue<{ n: number }>(fresh(), { retryDelaysMs: [], handle: async ({ n }, attempt) => void seen.push([n, attempt]) });
      for (let n = 0; n < 5; n++) await queue.add({ n });
      await waitFor(() => seen.length >= 5, 10_000, 'five jobs run');
      await sleep(200);
      expect(seen.map(([n]) => n).sort()).toEqual([0, 1, 2, 3, 4]);
      expect(seen.every(([, attempt]) => attempt.number === 1 && attempt.final)).toBe(true);
      expect(await queue.stats()).toEqual({ waiting: 0, delayed: 0, failed: 0 });
    });

    it('when a handler throws, then the job is tried again after each delay of the schedule, final on the last', async () => {
      const jobs = await openQueues();
      const attempts: Array<Attempt & { at: number }> = [];
      const delays = [100, 300];
      const queue = jobs.queue<string>(fresh(), {
        retryDelaysMs: delays,
        handle: async (_data, attempt) => {
          attempts.push({ ...attempt, at: Date.now() });
          if (attempt.number < 3) throw new Error(`attempt ${attempt.number} fails`);
        },
      });
      await queue.add('x');
      await waitFor(() => attempts.length >= 3, 10_000, 'three attempts');
      expect(attempts.map(({ number, final }) => ({ number, final }))).toEqual([
        { number: 1, final: false },
        { number: 2, final: false },
        { number: 3, final: true },
      ]);
      // At least the scheduled delay between attempts (never less; a loaded machine may take longer).
      const times = attempts.map(({ at }) => at);
      expect(times.slice(1).map((at, i) => at - (times[i] ?? 0))).toEqual([expect.any(Number), expect.any(Number)]);
      times.slice(1).forEach((at, i) => expect(at - (times[i] ?? 0)).toBeGreaterThanOrEqual((delays[i] ?? 0) - 5));
    });

    it('when the last attempt throws too, then the job is failed and not tried again', async () => {
      const jobs = await openQueues();
      const attempts: Attempt[] = [];
      const queue = jobs.queue<string>(fresh(), {
        retryDelaysMs: [20],
        handle: async (_data, attempt) => {
          attempts.push(attempt);
          throw new Error('always');
        },
      });
      await queue.add('x');
      await waitFor(async () => (await queue.stats()).failed === 1, 10_000, 'the job failed');
      await sleep(200);
      expect(attempts).toEqual([
        { number: 1, final: false },
        { number: 2, final: true },
      ]);
    });

    it('when a job id is added again (pending or done), then it runs once', async () => {
      const jobs = await openQueues();
      let runs = 0;
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const queue = jobs.queue<string>(fresh(), {
        retryDelaysMs: [],
        handle: async () => {
          runs += 1;
          await held;
        },
      });
      await queue.add('a', { jobId: 'email:1' });
      await queue.add('a', { jobId: 'email:1' });
      await waitFor(() => runs === 1, 10_000, 'the job started');
      await queue.add('a', { jobId: 'email:1' });
      release();
      await sleep(200);
      await queue.add('a', { jobId: 'email:1' });
      await queue.add('b', { jobId: 'email:2' });
      await waitFor(() => runs === 2, 10_000, 'the other job ran');
      await sleep(200);
      expect(runs).toBe(2);
    });

    if (!shared) return;

    it('when two replicas work one queue, then each job runs once', async () => {
      const name = fresh();
      const seen: number[] = [];
      const handle = async ({ n }: { n: number }) => void seen.push(n);
      const [a, b] = [await openQueues(), await openQueues()];
      const queueA = a.queue<{ n: number }>(name, { retryDelaysMs: [], handle });
      const queueB = b.queue<{ n: number }>(name, { retryDelaysMs: [], handle });
      for (let n = 0; n < 20; n++) await (n % 2 ? queueA : queueB).add({ n }, { jobId: `job-${n}` });
      // Both replicas add the same jobs too (as both would for one event).
      for (let n = 0; n < 20; n++) await (n % 2 ? queueB : queueA).add({ n }, { jobId: `job-${n}` });
      await waitFor(() => seen.length >= 20, 15_000, 'twenty jobs run');
      await sleep(300);
      expect(seen.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    });

    it('when the worker restarts while a job waits for its retry, then the new worker runs it with the next attempt number', async () => {
      const name = fresh();
      const first = await openQueues();
      let failed = false;
      const queue = first.queue<string>(name, {
        retryDelaysMs: [500],
        handle: async () => {
          failed = true;
          throw new Error('mail server down');
        },
      });
      await queue.add('pending');
      await waitFor(() => failed, 10_000, 'the first attempt');
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const attempts: Attempt[] = [];
      const second = await openQueues();
      second.queue<string>(name, { retryDelaysMs: [500], handle: async (_data, attempt) => void attempts.push(attempt) });
      await waitFor(() => attempts.length === 1, 15_000, 'the retry on the new worker');
      expect(attempts).toEqual([{ number: 2, final: true }]);
    });
  });
}
