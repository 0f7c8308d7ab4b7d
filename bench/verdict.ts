/**
 * What a bench run concludes, and the exit status that says it (issue 29: a run with other work on
 * the machine is not evidence, so it gives no verdict rather than a pass or a fail).
 */
import { verdictRefusal, type OtherWorkFigure } from './other-work';

/**
 * `met`: every target held; `missed`: one did not; `refused`: other processes were busy while the
 * bench measured, so no target is judged; `broken`: answers other than the scenario's (whatever the
 * load, the bench or the system is wrong); `not judged`: quick mode.
 */
export type Verdict = 'met' | 'missed' | 'refused' | 'broken' | 'not judged';

/** The exit statuses `--help` documents: a refused verdict is not a missed target. */
export const EXIT_STATUS = { ok: 0, missed: 1, failed: 2, refused: 3 } as const;

export interface VerdictInput {
  /** Full mode judges the targets; quick mode does not. */
  judge: boolean;
  otherWork: OtherWorkFigure;
  /** Scenarios with unexpected answers, described. */
  unexpected: string[];
  /** Targets missed, described. */
  missedTargets: string[];
}

export function verdictOf({ judge, otherWork, unexpected, missedTargets }: VerdictInput): { verdict: Verdict; noVerdictBecause?: string } {
  if (unexpected.length > 0) return { verdict: 'broken' };
  if (!judge) return { verdict: 'not judged' };
  const refusal = verdictRefusal(otherWork);
  if (refusal) return { verdict: 'refused', noVerdictBecause: refusal };
  return { verdict: missedTargets.length > 0 ? 'missed' : 'met' };
}

/** One status for the runs of every Node: broken or missed anywhere is 1, else refused anywhere is 3. */
export function exitStatus(verdicts: readonly Verdict[]): number {
  if (verdicts.some((v) => v === 'broken' || v === 'missed')) return EXIT_STATUS.missed;
  if (verdicts.includes('refused')) return EXIT_STATUS.refused;
  return EXIT_STATUS.ok;
}
