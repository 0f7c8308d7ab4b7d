import { shownUrlValue } from './redact';
import { GENERATE_SECRET_HINT, secretWeakness } from './secret-strength';

/**
 * Reads environment variables and collects every problem, so a misconfigured
 * process names all of them at once and refuses to start (`finish()` throws).
 */
export const NODE_ENVIRONMENTS = ['development', 'test', 'production'] as const;
export type NodeEnvironment = (typeof NODE_ENVIRONMENTS)[number];

export class EnvReader {
  private readonly problems: string[] = [];
  /** NODE_ENV, matched without regard to case; unset means development. */
  readonly nodeEnv: NodeEnvironment;

  constructor(private readonly env: NodeJS.ProcessEnv) {
    this.nodeEnv = this.readNodeEnv();
  }

  /**
   * Production is decided once, here: `Production` or ` PRODUCTION ` must not start a deployment
   * in development mode (a generated admin token, a printed demo key). An unknown value is refused,
   * and counts as production meanwhile, so that no development convenience runs before the refusal.
   */
  get production(): boolean {
    return this.nodeEnv === 'production';
  }

  private readNodeEnv(): NodeEnvironment {
    const raw = this.env.NODE_ENV;
    if (raw === undefined || raw.trim() === '') return 'development';
    const value = raw.trim().toLowerCase();
    if ((NODE_ENVIRONMENTS as readonly string[]).includes(value)) return value as NodeEnvironment;
    this.problems.push(`NODE_ENV must be one of ${NODE_ENVIRONMENTS.join(', ')} (any case), got "${raw}"`);
    return 'production';
  }

  string(name: string): string | undefined {
    const value = this.env[name];
    if (value === undefined) return undefined;
    if (value.trim() === '') {
      this.problems.push(`${name} is set but empty`);
      return undefined;
    }
    return value;
  }

  integer(name: string, fallback: number, { min, max }: { min: number; max: number }): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return Number(raw);
  }

  port(name: string, fallback: number): number {
    return this.integer(name, fallback, { min: 0, max: 65_535 });
  }

  url(name: string, fallback: string | undefined, protocols: string[]): string | undefined {
    const raw = this.string(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      if (!isUrlOf(raw, protocols)) throw new Error('protocol');
      return raw;
    } catch {
      // The value may hold a password: the message never does.
      this.problems.push(`${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}, got ${shownUrlValue(raw)}`);
      return fallback;
    }
  }

  /** A comma-separated list of URLs (white space around entries ignored), each with one of `protocols`. */
  urlList(name: string, fallback: string[], protocols: string[]): string[] {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const entries = raw.split(',').map((entry) => entry.trim());
    const invalid = entries.filter((entry) => !isUrlOf(entry, protocols));
    if (invalid.length > 0) {
      this.problems.push(`${name} must be a comma-separated list of URLs starting with ${protocols.map((p) => `${p}//`).join(' or ')}, but ${invalid.map(shownUrlValue).join(', ')} is not one`);
      return fallback;
    }
    return entries;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  }

  /**
   * A secret that production must be given, at least `minLength` characters long (the minimums
   * are in `settings.ts`); elsewhere `developmentValue()` provides one. In
   * production it must also be hard to guess (`secretWeakness`).
   */
  secret(name: string, developmentValue: () => string, minLength: number): { value: string; generated: boolean } {
    const raw = this.string(name);
    if (raw !== undefined) {
      if (raw.length < minLength) this.problems.push(`${name} must be at least ${minLength} characters long (${GENERATE_SECRET_HINT})`);
      else this.strongInProduction(name, raw);
      return { value: raw, generated: false };
    }
    if (this.production) {
      this.problems.push(`${name} is required when NODE_ENV=production`);
      return { value: '', generated: false };
    }
    return { value: developmentValue(), generated: true };
  }

  /** In production, a problem when `value` (the secret called `what`) is too easy to guess; the message never shows the value. */
  strongInProduction(what: string, value: string): void {
    if (!this.production) return;
    const weakness = secretWeakness(value);
    if (weakness) this.problems.push(`${what} is too easy to guess for production (${weakness}); ${GENERATE_SECRET_HINT}`);
  }

  problem(message: string): void {
    this.problems.push(message);
  }

  /** Throws a ConfigError listing every problem found, if any. */
  finish(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }
}

/**
 * Whether `raw` is a URL with one of `protocols` and a host: `redis:/app:pw@host` (one slash) parses
 * as a path without a host, and a client library would then quietly connect to its default host.
 */
export function isUrlOf(raw: string, protocols: readonly string[]): boolean {
  try {
    const url = new URL(raw);
    return protocols.includes(url.protocol) && url.host !== '';
  } catch {
    return false;
  }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Runs `load` and, on a ConfigError, prints every problem and exits with status 1. */
export function loadOrExit<T>(load: () => T, processName: string): T {
  try {
    return load();
  } catch (error) {
    return exitOnConfigError(error, processName);
  }
}

/** `loadOrExit` for what takes time to load (modules named in the configuration). */
export async function loadOrExitAsync<T>(load: () => Promise<T>, processName: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    return exitOnConfigError(error, processName);
  }
}

function exitOnConfigError(error: unknown, processName: string): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${processName}: refusing to start, ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
