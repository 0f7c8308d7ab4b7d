import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { inOrder } from './in-order';

describe('middleware run in order inside one layer (inOrder)', () => {
  const req = {} as Request;
  const res = {} as Response;
  /** Runs the handlers as one layer; resolves with what they passed on to the router. */
  function run(handlers: RequestHandler[]): Promise<{ passed: unknown[]; ran: string[] }> {
    return new Promise((resolve) => {
      const ran: string[] = [];
      const named = handlers.map((handler, i) => ((q: Request, s: Response, n: NextFunction) => (ran.push(`h${i}`), handler(q, s, n))) as RequestHandler);
      inOrder(named)(req, res, (...passed: unknown[]) => resolve({ passed, ran }));
    });
  }
  const pass: RequestHandler = (_q, _s, next) => next();
  /** An error passed to next, thrown, and rejected with. */
  const failure = new Error('refused');
  const passes: RequestHandler = (_q, _s, next) => next(failure);
  const throws: RequestHandler = () => {
    throw failure;
  };
  const rejects: RequestHandler = () => Promise.reject(failure);

  it('when every handler calls next, then each runs once, in order, and the router goes on with no error', async () => {
    expect(await run([pass, pass, pass])).toEqual({ passed: [], ran: ['h0', 'h1', 'h2'] });
  });

  it('when a handler passes an error, throws or rejects, then the later ones do not run and the router gets the error', async () => {
    for (const failing of [passes, throws, rejects]) expect(await run([pass, failing, pass])).toEqual({ passed: [failure], ran: ['h0', 'h1'] });
    const rejectsWithNothing: RequestHandler = () => Promise.reject(undefined);
    expect((await run([rejectsWithNothing, pass])).passed).toEqual([new Error('Rejected promise')]);
  });

  it("when a handler passes 'route', then the next one runs; 'router', then the router goes on past them all", async () => {
    const route: RequestHandler = (_q, _s, next) => next('route');
    const router: RequestHandler = (_q, _s, next) => next('router');
    expect(await run([route, pass])).toEqual({ passed: [], ran: ['h0', 'h1'] });
    expect(await run([pass, router, pass])).toEqual({ passed: [], ran: ['h0', 'h1'] });
  });

  it('when a handler answers without calling next, then the later ones do not run and the router is not called', async () => {
    const answered: string[] = [];
    const answers: RequestHandler = () => answered.push('answered');
    let routerCalled = false;
    inOrder([pass, answers, pass])(req, res, () => (routerCalled = true));
    expect({ answered, routerCalled }).toEqual({ answered: ['answered'], routerCalled: false });
  });

  it('when an error answerer is given, then an error passed, thrown or rejected goes to it with the request, not on to the router', async () => {
    for (const failing of [passes, throws, rejects]) {
      const answered = await new Promise<unknown[]>((resolve) => {
        const routerCalls: unknown[] = [];
        inOrder([pass, failing, pass], (error, q, s, n) => resolve([error, q, s, n, routerCalls]))(req, res, (...passed: unknown[]) => routerCalls.push(passed));
      });
      expect(answered).toEqual([failure, req, res, expect.any(Function), []]);
    }
  });

  it("when an error answerer is given, then no error, 'route' and 'router' still go on as without one", async () => {
    let answered = false;
    const routerCalls: unknown[][] = [];
    const router: RequestHandler = (_q, _s, next) => next('router');
    const route: RequestHandler = (_q, _s, next) => next('route');
    for (const handlers of [[pass, pass], [route, pass], [router, pass]]) inOrder(handlers, () => (answered = true))(req, res, (...passed: unknown[]) => routerCalls.push(passed));
    expect({ answered, routerCalls }).toEqual({ answered: false, routerCalls: [[], [], []] });
  });
});
