import { otherWorkFigure } from './other-work';
import { EXIT_STATUS, exitStatus, verdictOf } from './verdict';

const quiet = otherWorkFigure({ micros: 1e6, kernelMicros: 0, stolenMicros: 0, busiest: [] }, 100);
const busy = otherWorkFigure({ micros: 50e6, kernelMicros: 0, stolenMicros: 0, busiest: [] }, 100);

describe('bench verdict and exit status', () => {
  it('when the machine was quiet, then the targets decide: met (0) or missed (1)', () => {
    expect(verdictOf({ judge: true, otherWork: quiet, unexpected: [], missedTargets: [] })).toEqual({ verdict: 'met' });
    expect(verdictOf({ judge: true, otherWork: quiet, unexpected: [], missedTargets: ['cpu'] })).toEqual({ verdict: 'missed' });
    expect([exitStatus(['met']), exitStatus(['met', 'missed'])]).toEqual([EXIT_STATUS.ok, EXIT_STATUS.missed]);
  });

  it('when other processes were busy, then no verdict whatever the targets, with its own exit status (3)', () => {
    const refused = verdictOf({ judge: true, otherWork: busy, unexpected: [], missedTargets: ['cpu'] });
    expect(refused.verdict).toBe('refused');
    expect(refused.noVerdictBecause).toContain('0.5 cores');
    expect(exitStatus(['met', 'refused'])).toBe(3);
    expect(EXIT_STATUS.refused).not.toBe(EXIT_STATUS.missed);
  });

  it('when answers were unexpected, then the run is broken (1) even on a busy machine or in quick mode', () => {
    expect(verdictOf({ judge: true, otherWork: busy, unexpected: ['500s'], missedTargets: [] }).verdict).toBe('broken');
    expect(verdictOf({ judge: false, otherWork: quiet, unexpected: ['500s'], missedTargets: [] }).verdict).toBe('broken');
    expect(exitStatus(['refused', 'broken'])).toBe(EXIT_STATUS.missed);
  });

  it('when quick mode runs on a busy machine, then nothing is judged and it exits 0', () => {
    expect(verdictOf({ judge: false, otherWork: busy, unexpected: [], missedTargets: ['cpu'] })).toEqual({ verdict: 'not judged' });
    expect(exitStatus(['not judged', 'not judged'])).toBe(0);
  });
});
