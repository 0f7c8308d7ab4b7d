/** What every part of the ops CLI shares: where it writes, what it reads, how it ends. */

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export type Env = Record<string, string | undefined>;

/** 0 done, 1 refused by the API or the API unreachable, 2 a mistake on the command line. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** How the CLI is run, as its help and its errors name it. */
export const PROGRAM = 'npm run admin --';

/** A mistake on the command line that commander cannot see (a value, a missing token): exit 2. */
export class UsageError extends Error {}
