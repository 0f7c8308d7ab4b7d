import { parseArgs } from 'node:util';
import { ConfigError, EnvReader } from '../../../shared/src/env';
import { readInternalJwtSecret } from '../../../shared/src/settings';
import { MAX_TOKEN_LIFETIME_SECONDS, signServiceToken } from '../../../shared/src/internal-token';
import { auditChange, formatTime, renderTable, shareOf, type Column } from './table';

/**
 * The ops CLI: `npm run admin -- <command>`. It talks to the admin API over HTTP (so every
 * rule lives in one place, the gateway), except `token`, which signs locally.
 * The composition root is `main()` at the bottom; `runCli` takes everything it needs as
 * arguments so tests can drive it in-process as well as through the compiled file.
 */

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

type Env = Record<string, string | undefined>;
type OptionValues = Record<string, string | boolean | undefined>;

interface Context {
  positionals: string[];
  values: OptionValues;
  env: Env;
  io: CliIo;
}

interface OptionSpec {
  description: string;
  required?: boolean;
  short?: string;
  /** An option without a value (`--json`). */
  flag?: boolean;
}

interface Command {
  name: string;
  args: string[];
  options: Record<string, OptionSpec>;
  summary: string;
  details?: string;
  /** Commands that only sign locally need no admin URL or token. */
  local?: boolean;
  run(context: Context): Promise<number>;
}

class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const PROGRAM = 'npm run admin --';

const QUOTA_HELP = 'a positive integer';
/** The options every list shares. */
const JSON_OPTION: OptionSpec = { description: 'print the JSON array instead of a table', flag: true };
const CURSOR_OPTION: OptionSpec = { description: 'the page after a previous one (printed under it when there is more)' };
const COMMANDS: Command[] = [
  {
    name: 'accounts create',
    args: [],
    options: {
      name: { description: 'account name, 1-100 characters', required: true },
      plan: { description: 'free, pro, business or enterprise', required: true },
      'per-minute': { description: `per-minute quota override (${QUOTA_HELP}; required for enterprise)` },
      'per-day': { description: `per-day quota override (${QUOTA_HELP}; required for enterprise)` },
    },
    summary: 'Create an account.',
    run: async (c) =>
      request(c, 'POST', '/admin/accounts', {
        name: c.values.name,
        plan: c.values.plan,
        ...quotaFields(c.values, false),
      }),
  },
  {
    name: 'accounts list',
    args: [],
    options: {
      plan: { description: 'only accounts on this plan (free, pro, business or enterprise)' },
      search: { description: 'only accounts whose name or email contains this text (any case)' },
      limit: { description: 'accounts per page, 1-100 (default 20)' },
      cursor: CURSOR_OPTION,
      json: JSON_OPTION,
    },
    summary: 'List accounts, oldest first, one page at a time.',
    run: async (c) =>
      list(c, `/admin/accounts${query({ plan: c.values.plan, q: c.values.search, limit: c.values.limit, cursor: c.values.cursor })}`, ACCOUNT_COLUMNS, 'No account matches.'),
  },
  {
    name: 'accounts show',
    args: ['ACCOUNT_ID'],
    options: {},
    summary: 'Show an account with its effective quotas and current usage.',
    run: async (c) => request(c, 'GET', `/admin/accounts/${segment(c.positionals[0])}`),
  },
  {
    name: 'accounts update',
    args: ['ACCOUNT_ID'],
    options: {
      plan: { description: 'free, pro, business or enterprise' },
      'per-minute': { description: `per-minute quota override (${QUOTA_HELP}, or "none" to use the plan's)` },
      'per-day': { description: `per-day quota override (${QUOTA_HELP}, or "none" to use the plan's)` },
    },
    summary: "Change an account's plan or quota overrides.",
    run: async (c) => {
      const patch = { ...(c.values.plan === undefined ? {} : { plan: c.values.plan }), ...quotaFields(c.values, true) };
      if (Object.keys(patch).length === 0) throw new UsageError('nothing to update: give --plan, --per-minute or --per-day');
      return request(c, 'PATCH', `/admin/accounts/${segment(c.positionals[0])}`, patch);
    },
  },
  {
    name: 'keys create',
    args: ['ACCOUNT_ID'],
    options: {
      name: { description: 'what the key is for, 1-100 characters' },
      'read-only': { description: 'the key may only GET and HEAD (default: read-write)', flag: true },
      'expires-at': { description: 'when the key stops working, RFC 3339 with a time zone, e.g. 2030-01-31T12:00:00Z (default: never)' },
    },
    summary: "Create an API key for an account, for the gateway's environment (ask_live_… production, ask_test_… staging). The key is printed this once; only its hash is stored.",
    run: async (c) => {
      const body = {
        ...(typeof c.values.name === 'string' ? { name: c.values.name } : {}),
        ...(c.values['read-only'] ? { access: 'read-only' } : {}),
        ...(typeof c.values['expires-at'] === 'string' ? { expiresAt: c.values['expires-at'] } : {}),
      };
      return request(c, 'POST', `/admin/accounts/${segment(c.positionals[0])}/keys`, Object.keys(body).length > 0 ? body : undefined);
    },
  },
  {
    name: 'keys roll',
    args: ['KEY_ID'],
    options: {
      'grace-period': { description: 'how long the old key keeps working: seconds, or a number with s, m, h or d (0 to 7d; default 1d)' },
    },
    summary: 'Roll an API key: a new key with the same name and access, printed this once; the old key stops working at the end of the grace period.',
    run: async (c) => {
      const grace = c.values['grace-period'];
      return request(c, 'POST', `/admin/keys/${segment(c.positionals[0])}/roll`, typeof grace === 'string' ? { gracePeriodSeconds: durationSeconds('--grace-period', grace) } : undefined);
    },
  },
  {
    name: 'keys list',
    args: ['ACCOUNT_ID'],
    options: { json: JSON_OPTION },
    summary: "List an account's API keys: masked, created, last used, revoked or banned (never the key).",
    run: async (c) => list(c, `/admin/accounts/${segment(c.positionals[0])}/keys`, KEY_COLUMNS, 'This account has no keys.'),
  },
  {
    name: 'keys revoke',
    args: ['KEY_ID'],
    options: {},
    summary: 'Revoke an API key (every gateway replica refuses it within a second).',
    run: async (c) => request(c, 'DELETE', `/admin/keys/${segment(c.positionals[0])}`, undefined, { id: c.positionals[0], revoked: true }),
  },
  {
    name: 'bans lift',
    args: ['KEY_ID'],
    options: {},
    summary: 'Lift the temporary ban of an API key.',
    run: async (c) => request(c, 'DELETE', `/admin/keys/${segment(c.positionals[0])}/ban`, undefined, { id: c.positionals[0], banLifted: true }),
  },
  {
    name: 'plans list',
    args: [],
    options: {},
    summary: 'List the plans and their quotas.',
    run: async (c) => request(c, 'GET', '/admin/plans'),
  },
  {
    name: 'plans set',
    args: ['NAME'],
    options: {
      'per-minute': { description: QUOTA_HELP, required: true },
      'per-day': { description: QUOTA_HELP, required: true },
    },
    summary: "Change a plan's quotas on every replica (free, pro or business; enterprise has no plan numbers).",
    run: async (c) => request(c, 'PUT', `/admin/plans/${segment(c.positionals[0])}`, quotaFields(c.values, false)),
  },
  {
    name: 'usage top',
    args: [],
    options: {
      window: { description: 'minute (the current one, the default) or day (today, UTC)' },
      limit: { description: 'accounts shown, 1-100 (default 20)' },
      json: JSON_OPTION,
    },
    summary: 'The accounts using the largest share of their quota in the current window (a second or so behind).',
    run: async (c) => list(c, `/admin/usage/top${query({ window: c.values.window, limit: c.values.limit })}`, USAGE_COLUMNS, 'No account has used anything in this window.'),
  },
  {
    name: 'usage refused',
    args: [],
    options: {
      limit: { description: 'keys shown, 1-100 (default 20)' },
      json: JSON_OPTION,
    },
    summary: 'The keys refused most today (UTC), rate limited or banned: the accounts that hit their limits.',
    run: async (c) => list(c, `/admin/usage/refused${query({ limit: c.values.limit })}`, REFUSED_COLUMNS, 'No key has been refused today.'),
  },
  {
    name: 'audit',
    args: [],
    options: {
      account: { description: 'only changes to this account (its keys included)' },
      limit: { description: 'entries per page, 1-100 (default 20)' },
      cursor: CURSOR_OPTION,
      json: JSON_OPTION,
    },
    summary: 'The audit trail: who changed what and when, newest first.',
    run: async (c) => list(c, `/admin/audit${query({ account: c.values.account, limit: c.values.limit, cursor: c.values.cursor })}`, AUDIT_COLUMNS, 'No change recorded.'),
  },
  {
    name: 'token',
    args: [],
    options: {
      service: { description: 'the calling service, lower-case letters, digits and dashes', required: true },
      ttl: { description: `lifetime in seconds, 1-${MAX_TOKEN_LIFETIME_SECONDS} (default ${MAX_TOKEN_LIFETIME_SECONDS})` },
    },
    summary: 'Sign an internal service token for the pets-service (iss "service:NAME").',
    details:
      'Signed locally with INTERNAL_JWT_SECRET; outside production (NODE_ENV unset or not "production")\n' +
      'the generated development secret in data/.dev-internal-jwt-secret is used when the variable is unset.',
    local: true,
    run: async (c) => signToken(c),
  },
];

const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  token: { description: 'admin token (default: $ADMIN_TOKEN; prefer the variable, arguments are visible to other users)' },
  url: { description: 'admin API address (default: $ADMIN_URL, else http://127.0.0.1:${ADMIN_PORT:-8081})' },
  help: { description: 'show help', short: 'h' },
};

export async function runCli(argv: readonly string[], env: Env, io: CliIo): Promise<number> {
  try {
    return await dispatch([...argv], env, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`error: ${error.message}\nRun "${PROGRAM} ${error.command ? `${error.command} ` : ''}--help" for usage.\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

async function dispatch(argv: string[], env: Env, io: CliIo): Promise<number> {
  const [first, second] = argv;
  if (first === undefined) {
    io.stderr(generalHelp());
    return EXIT_USAGE;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout(generalHelp());
    return EXIT_OK;
  }
  const groups = new Set(COMMANDS.map((command) => command.name.split(' ')[0]));
  if (!groups.has(first)) throw new UsageError(`unknown command "${first}"`);

  let command = COMMANDS.find((candidate) => candidate.name === first);
  let rest = argv.slice(1);
  if (!command) {
    if (second === undefined || second === '--help' || second === '-h') {
      const help = groupHelp(first);
      if (second === undefined) {
        io.stderr(help);
        return EXIT_USAGE;
      }
      io.stdout(help);
      return EXIT_OK;
    }
    command = COMMANDS.find((candidate) => candidate.name === `${first} ${second}`);
    if (!command) throw new UsageError(`unknown command "${first} ${second}"`);
    rest = argv.slice(2);
  }
  const chosen = command;
  try {
    return await runCommand(chosen, rest, env, io);
  } catch (error) {
    if (error instanceof UsageError && !error.command) throw new UsageError(error.message, chosen.name);
    throw error;
  }
}

async function runCommand(command: Command, rest: string[], env: Env, io: CliIo): Promise<number> {
  const options = { ...command.options, ...(command.local ? { help: GLOBAL_OPTIONS.help! } : GLOBAL_OPTIONS) };
  let parsed: { values: OptionValues; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(
        Object.entries(options).map(([name, spec]) => [name, { type: name === 'help' || spec.flag ? 'boolean' : 'string', ...(spec.short ? { short: spec.short } : {}) }]),
      ) as Record<string, { type: 'string' | 'boolean'; short?: string }>,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  if (parsed.values.help) {
    io.stdout(commandHelp(command));
    return EXIT_OK;
  }
  if (parsed.positionals.length !== command.args.length) {
    throw new UsageError(
      command.args.length === 0
        ? `"${command.name}" takes no arguments, got "${parsed.positionals.join(' ')}"`
        : `"${command.name}" needs ${command.args.join(' ')}: ${command.name} ${usageLine(command)}`,
    );
  }
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.required && parsed.values[name] === undefined) throw new UsageError(`"${command.name}" needs --${name}`);
  }
  return command.run({ positionals: parsed.positionals, values: parsed.values, env, io });
}

function quotaFields(values: OptionValues, allowNone: boolean): Record<string, number | null> {
  const fields: Record<string, number | null> = {};
  for (const [flag, field] of [['per-minute', 'perMinute'], ['per-day', 'perDay']] as const) {
    const raw = values[flag];
    if (raw === undefined || typeof raw !== 'string') continue;
    if (allowNone && raw === 'none') fields[field] = null;
    else if (/^[0-9]+$/.test(raw)) fields[field] = Number(raw);
    else throw new UsageError(`--${flag} must be ${QUOTA_HELP}${allowNone ? ' or "none"' : ''}, got "${raw}"`);
  }
  return fields;
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `90`, `90s`, `15m`, `24h` or `7d` in seconds; the API checks the range. */
function durationSeconds(flag: string, raw: string): number {
  const match = /^([0-9]{1,9})([smhd]?)$/.exec(raw);
  if (!match) throw new UsageError(`${flag} must be a number of seconds, or a number followed by s, m, h or d (e.g. 24h), got "${raw}"`);
  return Number(match[1]) * DURATION_UNITS[match[2] || 's']!;
}

function segment(value: string | undefined): string {
  return encodeURIComponent(value ?? '');
}

function adminUrl(values: OptionValues, env: Env): string {
  const raw = (values.url as string | undefined) ?? env.ADMIN_URL ?? `http://127.0.0.1:${env.ADMIN_PORT || '8081'}`;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    return url.href.replace(/\/+$/, '');
  } catch {
    throw new UsageError(`the admin URL must start with http:// or https://, got "${raw}"`);
  }
}

type Reply = { ok: true; status: number; payload: unknown; link: string | null } | { ok: false; exitCode: number };

/** Calls the admin API; a refusal or an unreachable API is reported on stderr here. */
async function call(context: Context, method: string, path: string, body?: unknown): Promise<Reply> {
  const { values, env, io } = context;
  const base = adminUrl(values, env);
  const token = (values.token as string | undefined) ?? env.ADMIN_TOKEN;
  if (!token) throw new UsageError('no admin token: set ADMIN_TOKEN (or pass --token)');

  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    io.stderr(`error: cannot reach the admin API at ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}\n`);
    return { ok: false, exitCode: EXIT_FAILED };
  }

  const text = await response.text();
  let payload: unknown = undefined;
  try {
    payload = text === '' ? undefined : JSON.parse(text);
  } catch {
    // reported below if it matters
  }
  if (!response.ok) {
    const { code, message } = (payload ?? {}) as { code?: unknown; message?: unknown };
    io.stderr(
      typeof code === 'string' && typeof message === 'string'
        ? `error: ${code}: ${message}\n`
        : `error: http_${response.status}: the admin API answered ${response.status} ${response.statusText}\n`,
    );
    return { ok: false, exitCode: EXIT_FAILED };
  }
  return { ok: true, status: response.status, payload, link: response.headers.get('link') };
}

/** Calls the admin API and prints the JSON answer (or `printOnNoContent` for a 204). */
async function request(context: Context, method: string, path: string, body?: unknown, printOnNoContent?: unknown): Promise<number> {
  const reply = await call(context, method, path, body);
  if (!reply.ok) return reply.exitCode;
  const result = reply.status === 204 ? printOnNoContent : reply.payload;
  if (result !== undefined) context.io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  return EXIT_OK;
}

/**
 * A listing: a table for a person, or with --json the API's array as it is. When the API has a
 * next page, the way to it is printed under the table (with --json: on stderr, so stdout stays JSON).
 */
async function list(context: Context, path: string, columns: Column[], empty: string): Promise<number> {
  const reply = await call(context, 'GET', path);
  if (!reply.ok) return reply.exitCode;
  const rows = Array.isArray(reply.payload) ? (reply.payload as Record<string, unknown>[]) : [];
  const cursor = nextCursor(reply.link);
  const more = cursor === undefined ? undefined : `More: add --cursor ${cursor} to see the next page.\n`;
  if (context.values.json) {
    context.io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    if (more) context.io.stderr(more);
  } else {
    context.io.stdout(rows.length === 0 ? `${empty}\n` : renderTable(columns, rows));
    if (more) context.io.stdout(more);
  }
  return EXIT_OK;
}

function nextCursor(link: string | null): string | undefined {
  const target = /<([^>]+)>\s*;\s*rel="next"/.exec(link ?? '')?.[1];
  return target === undefined ? undefined : (new URLSearchParams(target.split('?')[1] ?? '').get('cursor') ?? undefined);
}

/** A query string of the options given (absent ones left out); the API validates the values. */
function query(params: Record<string, string | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (typeof value === 'string') search.set(name, value);
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

const ACCOUNT_COLUMNS: Column[] = [
  { title: 'ID', value: (row) => row.id },
  { title: 'NAME', value: (row) => row.name },
  { title: 'EMAIL', value: (row) => row.email ?? '' },
  { title: 'PLAN', value: (row) => row.plan },
  { title: 'PER MINUTE', value: (row) => row.perMinute, number: true },
  { title: 'PER DAY', value: (row) => row.perDay, number: true },
  { title: 'CREATED (UTC)', value: (row) => formatTime(row.createdAt) },
];

const KEY_COLUMNS: Column[] = [
  { title: 'ID', value: (row) => row.id },
  { title: 'KEY', value: (row) => row.masked ?? '(not kept)' },
  { title: 'NAME', value: (row) => row.name ?? '' },
  { title: 'ACCESS', value: (row) => row.access ?? 'read-write' },
  { title: 'CREATED (UTC)', value: (row) => formatTime(row.createdAt) },
  { title: 'EXPIRES (UTC)', value: (row) => (row.expiresAt ? formatTime(row.expiresAt) : 'never') },
  { title: 'LAST USED (UTC)', value: (row) => (row.lastUsedAt ? formatTime(row.lastUsedAt) : 'never') },
  { title: 'STATE', value: (row) => keyState(row) },
];

/** `active`, `revoked …`, `expired`, `banned until …`, with `replaced by key_…` after a roll. */
function keyState(row: Record<string, unknown>): string {
  if (typeof row.revokedAt === 'string') return `revoked ${formatTime(row.revokedAt)}`;
  const expired = typeof row.expiresAt === 'string' && Date.parse(row.expiresAt) <= Date.now();
  const state = expired ? 'expired' : typeof row.bannedUntil === 'string' ? `banned until ${formatTime(row.bannedUntil)}` : 'active';
  return typeof row.replacedBy === 'string' ? `${state}, replaced by ${row.replacedBy}` : state;
}

const USAGE_COLUMNS: Column[] = [
  { title: 'ACCOUNT', value: (row) => row.accountId },
  { title: 'NAME', value: (row) => row.name ?? '' },
  { title: 'PLAN', value: (row) => row.plan },
  { title: 'USED', value: (row) => row.used, number: true },
  { title: 'QUOTA', value: (row) => row.quota, number: true },
  { title: 'SHARE', value: (row) => shareOf(row.used, row.quota), number: true },
];

const REFUSED_COLUMNS: Column[] = [
  { title: 'KEY', value: (row) => row.keyId },
  { title: 'ACCOUNT', value: (row) => row.accountId },
  { title: 'NAME', value: (row) => row.name ?? '' },
  { title: 'PLAN', value: (row) => row.plan },
  { title: 'REFUSED TODAY', value: (row) => row.refused, number: true },
];

const AUDIT_COLUMNS: Column[] = [
  { title: 'WHEN (UTC)', value: (row) => formatTime(row.at) },
  { title: 'WHO', value: (row) => row.actor },
  { title: 'ACTION', value: (row) => row.action },
  { title: 'TARGET', value: (row) => row.target },
  { title: 'CHANGE', value: (row) => auditChange(row.before, row.after) },
];

async function signToken({ values, env, io }: Context): Promise<number> {
  const ttlRaw = values.ttl as string | undefined;
  const ttl = ttlRaw === undefined ? MAX_TOKEN_LIFETIME_SECONDS : Number(ttlRaw);
  if (ttlRaw !== undefined && (!/^[0-9]+$/.test(ttlRaw) || ttl < 1 || ttl > MAX_TOKEN_LIFETIME_SECONDS)) {
    throw new UsageError(`--ttl must be an integer from 1 to ${MAX_TOKEN_LIFETIME_SECONDS}, got "${ttlRaw}"`);
  }
  const reader = new EnvReader(env as NodeJS.ProcessEnv);
  const secret = readInternalJwtSecret(reader);
  try {
    reader.finish();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.problems.join('; '));
    throw error;
  }
  const service = values.service as string;
  let token: string;
  try {
    token = signServiceToken(service, secret.value, ttl);
  } catch (error) {
    throw new UsageError(`--service: ${(error as Error).message}`);
  }
  const expiresAt = new Date(Date.now() + ttl * 1000).toISOString();
  io.stdout(`${JSON.stringify({ token, issuer: `service:${service}`, audience: 'pets-service', expiresAt }, null, 2)}\n`);
  return EXIT_OK;
}

function usageLine(command: Command): string {
  const options = Object.entries(command.options).map(([name, spec]) => {
    const flag = spec.flag ? `--${name}` : `--${name} ${metavarOf(name)}`;
    return spec.required ? flag : `[${flag}]`;
  });
  return [...command.args, ...options].join(' ');
}

function metavarOf(option: string): string {
  const metavars: Record<string, string> = {
    name: 'NAME',
    plan: 'PLAN',
    service: 'NAME',
    ttl: 'SECONDS',
    token: 'TOKEN',
    url: 'URL',
    search: 'TEXT',
    cursor: 'CURSOR',
    window: 'WINDOW',
    account: 'ACCOUNT_ID',
    'expires-at': 'TIME',
    'grace-period': 'DURATION',
  };
  return metavars[option] ?? 'N';
}

function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => `${command.name} ${usageLine(command)}`.length));
  const lines = COMMANDS.map((command) => `  ${`${command.name} ${usageLine(command)}`.padEnd(width)}  ${command.summary}`);
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Operates the gateway through its admin API, authenticated with ADMIN_TOKEN.',
    '',
    'Commands:',
    ...lines,
    '',
    'Options of every command but token:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'Lists (accounts list, keys list, usage top, usage refused, audit) print a table, or JSON with --json;',
    'the other commands print JSON. Exit status: 0 done, 1 refused by the API or API unreachable, 2 usage error.',
    `Run "${PROGRAM} <command> --help" for one command.`,
    '',
  ].join('\n');
}

function groupHelp(group: string): string {
  const commands = COMMANDS.filter((command) => command.name.split(' ')[0] === group);
  return [`Usage: ${PROGRAM} ${group} <${commands.map((c) => c.name.split(' ')[1]).join('|')}> ...`, '', ...commands.map((c) => `  ${c.name} ${usageLine(c)}\n      ${c.summary}`), ''].join('\n');
}

function commandHelp(command: Command): string {
  return [
    `Usage: ${PROGRAM} ${command.name} ${usageLine(command)}`.trimEnd(),
    '',
    command.summary,
    ...(command.details ? ['', command.details] : []),
    '',
    'Options:',
    ...optionLines({ ...command.options, ...(command.local ? { help: GLOBAL_OPTIONS.help! } : GLOBAL_OPTIONS) }),
    '',
  ].join('\n');
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const labels = Object.entries(options).map(
    ([name, spec]) => [`${spec.short ? `-${spec.short}, ` : ''}--${name}${name === 'help' || spec.flag ? '' : ` ${metavarOf(name)}`}`, spec.description] as const,
  );
  const width = Math.max(...labels.map(([label]) => label.length));
  return labels.map(([label, description]) => `  ${label.padEnd(width)}  ${description}`);
}

function main(): void {
  const io: CliIo = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };
  runCli(process.argv.slice(2), process.env, io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = EXIT_FAILED;
    },
  );
}

if (require.main === module) main();
