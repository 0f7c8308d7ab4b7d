import { Option, type Command } from 'commander';
import { PLAN_NAMES, PLAN_WITHOUT_NUMBERS } from '../accounts/types';
import { MAX_NAME_LENGTH } from '../accounts/input-limits';
import { LISTING_LIMIT } from '../admin/listing-limit';
import { AdminClient, query, segment } from './admin-client';
import { ACCOUNT_COLUMNS, AUDIT_COLUMNS, DELIVERY_COLUMNS, KEY_COLUMNS, REFUSED_COLUMNS, USAGE_COLUMNS, WEBHOOK_COLUMNS } from './columns';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/event-types';
import { EXIT_OK, EXIT_USAGE, UsageError, type CliIo, type Env } from './io';
import { MAX_TOKEN_LIFETIME_SECONDS, signTokenFor } from './service-token';
import { QUOTA_HELP, durationParser, integerParser, orList, quotaFields, quotaParser } from './values';

/** What the commands run with, and where the one that ran leaves its exit status. */
export interface CommandContext {
  env: Env;
  io: CliIo;
  exitCode: number;
}

// Commander passes an action's options untyped; each action reads the ones it declared.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Options = Record<string, any>;
type AdminAction = (client: AdminClient, args: string[], options: Options) => Promise<number>;

/** The options every command that calls the admin API takes (all but `token`). */
export const ADMIN_OPTION_NAMES = ['--token', '--url'];

const PLANS = orList(PLAN_NAMES);
const NAME_HELP = `1-${MAX_NAME_LENGTH} characters`;
const jsonOption = () => new Option('--json', 'print the JSON array instead of a table');
const cursorOption = () => new Option('--cursor <CURSOR>', 'the page after a previous one (printed under it when there is more)');
const limitOption = (what: string) => new Option('--limit <N>', `${what}, ${LISTING_LIMIT.minimum}-${LISTING_LIMIT.maximum} (default ${LISTING_LIMIT.default})`);
const quotaOption = (window: 'minute' | 'day', note: string, allowNone = false) =>
  new Option(`--per-${window} <N>`, `per-${window} quota${note}`).argParser(quotaParser(`--per-${window}`, allowNone));

/** Adds every command to `program`: groups of subcommands (accounts, keys, bans, plans, usage), `audit` and `token`. */
export function addCommands(program: Command, context: CommandContext): void {
  const callingTheApi: Command[] = [];
  const admin = (parent: Command, name: string, summary: string, run: AdminAction) => {
    const command = adminCommand(parent.command(name).description(summary), context, run);
    callingTheApi.push(command);
    return command;
  };

  const accounts = program.command('accounts').description('Create, list, show and update accounts.');
  admin(accounts, 'create', 'Create an account.', (client, _args, o) => client.print('POST', '/admin/accounts', { name: o.name, plan: o.plan, ...quotaFields(o) }))
    .addOption(new Option('--name <NAME>', `account name, ${NAME_HELP}`).makeOptionMandatory())
    .addOption(new Option('--plan <PLAN>', PLANS).makeOptionMandatory())
    .addOption(quotaOption('minute', ` override (${QUOTA_HELP}; required for ${PLAN_WITHOUT_NUMBERS})`))
    .addOption(quotaOption('day', ` override (${QUOTA_HELP}; required for ${PLAN_WITHOUT_NUMBERS})`));
  admin(accounts, 'list', 'List accounts, oldest first, one page at a time.', (client, _args, o) =>
    client.list(`/admin/accounts${query({ plan: o.plan, q: o.search, limit: o.limit, cursor: o.cursor })}`, ACCOUNT_COLUMNS, 'No account matches.', o.json === true),
  )
    .option('--plan <PLAN>', `only accounts on this plan (${PLANS})`)
    .option('--search <TEXT>', 'only accounts whose name or email contains this text (any case)')
    .addOption(limitOption('accounts per page'))
    .addOption(cursorOption())
    .addOption(jsonOption());
  admin(accounts, 'show', 'Show an account with its effective quotas, current usage and whether its email is verified.', (client, [id]) => client.print('GET', `/admin/accounts/${segment(id!)}`)).argument('<ACCOUNT_ID>');
  admin(accounts, 'verify', "Mark a portal account's email verified (it may then create keys), e.g. when its owner cannot receive the link.", (client, [id]) =>
    client.print('POST', `/admin/accounts/${segment(id!)}/verify`),
  ).argument('<ACCOUNT_ID>');
  admin(accounts, 'update', "Change an account's plan or quota overrides.", (client, [id], o) => {
    const patch = { ...(o.plan === undefined ? {} : { plan: o.plan }), ...quotaFields(o) };
    if (Object.keys(patch).length === 0) throw new UsageError('nothing to update: give --plan, --per-minute or --per-day');
    return client.print('PATCH', `/admin/accounts/${segment(id!)}`, patch);
  })
    .argument('<ACCOUNT_ID>')
    .option('--plan <PLAN>', PLANS)
    .addOption(quotaOption('minute', ` override (${QUOTA_HELP}, or "none" to use the plan's)`, true))
    .addOption(quotaOption('day', ` override (${QUOTA_HELP}, or "none" to use the plan's)`, true));

  const keys = program.command('keys').description('Create, roll, list and revoke API keys.');
  admin(
    keys,
    'create',
    "Create an API key for an account, for the gateway's environment (ask_live_… production, ask_test_… staging). The key is printed this once; only its hash is stored.",
    (client, [id], o) => {
      const body = { ...(o.name === undefined ? {} : { name: o.name }), ...(o.readOnly ? { access: 'read-only' } : {}), ...(o.expiresAt === undefined ? {} : { expiresAt: o.expiresAt }) };
      return client.print('POST', `/admin/accounts/${segment(id!)}/keys`, Object.keys(body).length > 0 ? body : undefined);
    },
  )
    .argument('<ACCOUNT_ID>')
    .option('--name <NAME>', `what the key is for, ${NAME_HELP}`)
    .option('--read-only', 'the key may only GET and HEAD (default: read-write)')
    .option('--expires-at <TIME>', 'when the key stops working, RFC 3339 with a time zone, e.g. 2030-01-31T12:00:00Z (default: never)');
  admin(keys, 'roll', 'Roll an API key: a new key with the same name and access, printed this once; the old key stops working at the end of the grace period.', (client, [id], o) =>
    client.print('POST', `/admin/keys/${segment(id!)}/roll`, o.gracePeriod === undefined ? undefined : { gracePeriodSeconds: o.gracePeriod }),
  )
    .argument('<KEY_ID>')
    .addOption(new Option('--grace-period <DURATION>', 'how long the old key keeps working: seconds, or a number with s, m, h or d (0 to 7d; default 1d)').argParser(durationParser('--grace-period')));
  admin(keys, 'list', "List an account's API keys, oldest first, one page at a time: masked, created, last used, revoked or banned (never the key).", (client, [id], o) =>
    client.list(`/admin/accounts/${segment(id!)}/keys${query({ limit: o.limit, cursor: o.cursor })}`, KEY_COLUMNS, 'This account has no keys.', o.json === true),
  )
    .argument('<ACCOUNT_ID>')
    .addOption(limitOption('keys per page'))
    .addOption(cursorOption())
    .addOption(jsonOption());
  admin(keys, 'revoke', 'Revoke an API key (every gateway replica refuses it within a second).', (client, [id]) =>
    client.print('DELETE', `/admin/keys/${segment(id!)}`, undefined, { id, revoked: true }),
  ).argument('<KEY_ID>');

  const bans = program.command('bans').description('Lift temporary bans.');
  admin(bans, 'lift', 'Lift the temporary ban of an API key.', (client, [id]) => client.print('DELETE', `/admin/keys/${segment(id!)}/ban`, undefined, { id, banLifted: true })).argument('<KEY_ID>');

  const plans = program.command('plans').description('List plans and change their quotas.');
  admin(plans, 'list', 'List the plans and their quotas.', (client) => client.print('GET', '/admin/plans'));
  const numbered = orList(PLAN_NAMES.filter((plan) => plan !== PLAN_WITHOUT_NUMBERS));
  admin(plans, 'set', `Change a plan's quotas on every replica (${numbered}; ${PLAN_WITHOUT_NUMBERS} has no plan numbers).`, (client, [name], o) =>
    client.print('PUT', `/admin/plans/${segment(name!)}`, quotaFields(o)),
  )
    .argument('<NAME>')
    .addOption(quotaOption('minute', ` (${QUOTA_HELP})`).makeOptionMandatory())
    .addOption(quotaOption('day', ` (${QUOTA_HELP})`).makeOptionMandatory());

  const usage = program.command('usage').description('Who uses the most of their quota, who is refused most.');
  admin(usage, 'top', 'The accounts using the largest share of their quota in the current window (a second or so behind).', (client, _args, o) =>
    client.list(`/admin/usage/top${query({ window: o.window, limit: o.limit })}`, USAGE_COLUMNS, 'No account has used anything in this window.', o.json === true),
  )
    .option('--window <WINDOW>', 'minute (the current one, the default) or day (today, UTC)')
    .addOption(limitOption('accounts shown'))
    .addOption(jsonOption());
  admin(usage, 'refused', 'The keys refused most today (UTC), rate limited or banned: the accounts that hit their limits.', (client, _args, o) =>
    client.list(`/admin/usage/refused${query({ limit: o.limit })}`, REFUSED_COLUMNS, 'No key has been refused today.', o.json === true),
  )
    .addOption(limitOption('keys shown'))
    .addOption(jsonOption());

  const webhooks = program.command('webhooks').description("Add, list and delete an account's webhook endpoints; see their deliveries; send a test event.");
  admin(webhooks, 'add', 'Add a webhook endpoint (URL: where events are POSTed, https:// on a public address) to an account. Its signing secret (whsec_…) is printed this once.', (client, [id, url], o) =>
    client.print('POST', `/admin/accounts/${segment(id!)}/webhooks`, { url, ...(o.events === undefined ? {} : { events: String(o.events).split(',') }) }),
  )
    .argument('<ACCOUNT_ID>')
    .argument('<URL>')
    .option('--events <TYPES>', `comma-separated event types (default: every one: ${WEBHOOK_EVENT_TYPES.join(', ')})`);
  admin(webhooks, 'list', "List an account's webhook endpoints (never their secrets).", (client, [id], o) =>
    client.list(`/admin/accounts/${segment(id!)}/webhooks`, WEBHOOK_COLUMNS, 'This account has no webhook endpoints.', o.json === true),
  )
    .argument('<ACCOUNT_ID>')
    .addOption(jsonOption());
  admin(webhooks, 'delete', 'Delete a webhook endpoint (its pending deliveries are dropped).', (client, [id]) =>
    client.print('DELETE', `/admin/webhooks/${segment(id!)}`, undefined, { id, deleted: true }),
  ).argument('<WEBHOOK_ID>');
  admin(webhooks, 'deliveries', "An endpoint's recent deliveries, newest first: status, attempts, the receiver's last answer.", (client, [id], o) =>
    client.list(`/admin/webhooks/${segment(id!)}/deliveries${query({ limit: o.limit, cursor: o.cursor })}`, DELIVERY_COLUMNS, 'No delivery yet.', o.json === true),
  )
    .argument('<WEBHOOK_ID>')
    .addOption(limitOption('deliveries per page'))
    .addOption(cursorOption())
    .addOption(jsonOption());
  admin(webhooks, 'test', 'Send a webhook.test event to the endpoint (see it with "webhooks deliveries").', (client, [id]) => client.print('POST', `/admin/webhooks/${segment(id!)}/test`)).argument(
    '<WEBHOOK_ID>',
  );

  admin(program, 'audit', 'The audit trail: who changed what and when, newest first.', (client, _args, o) =>
    client.list(`/admin/audit${query({ account: o.account, limit: o.limit, cursor: o.cursor })}`, AUDIT_COLUMNS, 'No change recorded.', o.json === true),
  )
    .option('--account <ACCOUNT_ID>', 'only changes to this account (its keys included)')
    .addOption(limitOption('entries per page'))
    .addOption(cursorOption())
    .addOption(jsonOption());

  program
    .command('token')
    .description('Sign an internal service token for the pets-service (iss "service:NAME").')
    .addOption(new Option('--service <NAME>', 'the calling service, lower-case letters, digits and dashes').makeOptionMandatory())
    .addOption(
      new Option('--ttl <SECONDS>', `lifetime in seconds, 1-${MAX_TOKEN_LIFETIME_SECONDS} (default ${MAX_TOKEN_LIFETIME_SECONDS})`).argParser(integerParser('--ttl', 1, MAX_TOKEN_LIFETIME_SECONDS)),
    )
    .addHelpText(
      'after',
      '\nSigned locally with INTERNAL_JWT_SECRET; outside production (NODE_ENV unset or not "production")\n' +
        'the generated development secret in data/.dev-internal-jwt-secret is used when the variable is unset.',
    )
    .action(async (o: Options, command: Command) => {
      context.exitCode = await asUsage(command, async () => {
        context.io.stdout(`${JSON.stringify(signTokenFor(o.service, o.ttl ?? MAX_TOKEN_LIFETIME_SECONDS, context.env), null, 2)}\n`);
        return EXIT_OK;
      });
    });

  // After each command's own options, so its help lists those first.
  for (const command of callingTheApi) {
    command
      .option('--token <TOKEN>', 'admin token (default: $ADMIN_TOKEN; prefer the variable, arguments are visible to other users)')
      .option('--url <URL>', 'admin API address (default: $ADMIN_URL, else http://127.0.0.1:${ADMIN_PORT:-8081})');
  }
}

/** A command that calls the admin API: it runs with a client connected by its --token and --url. */
function adminCommand(command: Command, context: CommandContext, run: AdminAction): Command {
  return command.action(async (...params: unknown[]) => {
      const self = params[params.length - 1] as Command;
      const options = self.opts<Options>();
      context.exitCode = await asUsage(self, () => run(AdminClient.connect(options, context.env, context.io), self.processedArgs as string[], options));
    });
}

/** Runs `work`; a UsageError it throws is reported by commander like its own mistakes (exit 2, with the hint to --help). */
async function asUsage(command: Command, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UsageError) command.error(`error: ${error.message}`, { exitCode: EXIT_USAGE, code: 'admin.usage' });
    throw error;
  }
}
