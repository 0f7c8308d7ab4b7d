import type { Exchange, Next, Stage } from './exchange';

/**
 * Runs the stages of the `/v1` pipeline in their fixed order: `next()` runs the next stage,
 * `next(error)` ends the pipeline with that error (`finish` answers it), and a stage's rejected
 * promise or thrown error does the same. A plain loop over plain functions: no router matches a
 * path or sets up parameters per stage (measured in docs/performance.md).
 */
export function runStages(stages: readonly Stage[], finish: (x: Exchange, error: unknown) => void): (x: Exchange) => void {
  return (x) => {
    let index = 0;
    let ended = false;
    const next: Next = (error) => {
      if (ended) return;
      if (error !== undefined && error !== null) {
        ended = true;
        return finish(x, error);
      }
      const stage = stages[index++];
      if (!stage) {
        ended = true;
        return finish(x, new Error('the /v1 pipeline ended without an answer'));
      }
      try {
        const result = stage(x, next);
        if (result instanceof Promise) result.catch(next);
      } catch (thrown) {
        next(thrown ?? new Error('a pipeline stage threw nothing'));
      }
    };
    next();
  };
}

/** A stage that answers one path itself (`/openapi.json`) and passes every other request on. */
export function onPath(path: string, methods: readonly string[], answer: Stage, refuse: Stage): Stage {
  return (x, next) => {
    if (x.path !== path && x.path !== `${path}/`) return next();
    return methods.includes(x.req.method ?? '') ? answer(x, next) : refuse(x, next);
  };
}
