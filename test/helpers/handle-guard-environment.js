const { setTimeout: sleep } = require('node:timers/promises');
const { TestEnvironment } = require('jest-environment-node');
const { createHook } = require('node:async_hooks');
const { activeResources, addedResources: added } = require('./active-resources');

/**
 * HANDLE_GUARD_STACKS=1: where each timer the file left running was created, in the failure. Off
 * by default (an async hook on every resource slows the whole tier); for a leak seen only under
 * load, where `--detectOpenHandles` (in band, and slow) does not reproduce it.
 */
const RECORD_STACKS = Boolean(process.env.HANDLE_GUARD_STACKS);

/**
 * How long a file's handles may take to go after its last test: closing a socket or a child process
 * is asynchronous, and a client closing against a Redis Cluster that is stopping can keep a timer for
 * seconds. 10 s was not enough with two full suites side by side on two cores (a cluster file's
 * Timeout, gone when run alone): the wait ends as soon as the handles are gone, so only a file that
 * really leaks pays it. HANDLE_GUARD_SETTLE_MS shortens it for the guard's own test.
 */
const SETTLE_MS = Number(process.env.HANDLE_GUARD_SETTLE_MS) || 30_000;

/**
 * The service tier's environment: a test file fails if it leaves a handle open (a socket, a server,
 * a timer, a child process) once its tests and hooks are done. Each jest worker runs many files, so
 * one file's leftover kept the worker from exiting, and jest only said at the very end that "a worker
 * process has failed to exit gracefully", naming no file; here the file that leaked is named. To find
 * what it left, run it alone with `--detectOpenHandles`.
 */
class HandleGuardEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    // process.stdout and process.stderr open their handle on first use: a pipe (PipeWrap) when jest's
    // output is piped, as in CI. The first warning a worker prints (Node 24 warns about http-proxy's
    // util._extend) would otherwise count as a handle the file that printed it left open.
    void process.stdout;
    void process.stderr;
    this.before = activeResources();
    if (RECORD_STACKS) {
      this.timers = new Map();
      this.hook = createHook({
        init: (_id, type, _trigger, resource) => {
          if (type === 'Timeout') this.timers.set(resource, new Error('timer created').stack);
        },
      }).enable();
    }
    await super.setup();
  }

  async teardown() {
    const deadline = Date.now() + SETTLE_MS;
    let left = added(this.before, activeResources());
    while (left.length > 0 && Date.now() < deadline) {
      await sleep(50);
      left = added(this.before, activeResources());
    }
    this.hook?.disable();
    await super.teardown();
    if (left.length > 0) throw new Error(`${this.testPath} left open after its tests: ${left.join(', ')} (run it alone with --detectOpenHandles to see where they were opened)${this.timerStacks()}`);
  }

  /** With HANDLE_GUARD_STACKS: where the timers still running were created. */
  timerStacks() {
    if (!this.timers) return '';
    const running = [...this.timers].filter(([timer]) => !timer._destroyed && timer.hasRef());
    return running.map(([timer, stack]) => `\n\nTimeout of ${timer._idleTimeout} ms, ${stack}`).join('');
  }
}

module.exports = HandleGuardEnvironment;
