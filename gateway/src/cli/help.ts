import { Help, type Command, type Option } from 'commander';
import { ADMIN_OPTION_NAMES } from './commands';
import { PROGRAM } from './io';

/**
 * The CLI's help, in commander's layout with two changes: usage lines name every argument and
 * option as they are typed (`plans set NAME --per-minute N --per-day N`), and the tool's own help
 * lists every command with its usage, not only the groups.
 */

/** The words that select `command`, from the program down: `keys roll`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function isAdminOption(option: Option): boolean {
  return ADMIN_OPTION_NAMES.includes(option.long ?? '');
}

/** An option as typed: `--per-day N`, `[--json]` when it may be left out. */
function optionUsage(option: Option): string {
  const metavar = /<([^>]+)>/.exec(option.flags)?.[1];
  const typed = metavar ? `${option.long} ${metavar}` : option.long!;
  return option.mandatory ? typed : `[${typed}]`;
}

/** A command's arguments and its own options (not the admin connection's). */
function usageTail(command: Command): string {
  return [...command.registeredArguments.map((argument) => argument.name()), ...command.options.filter((option) => !isAdminOption(option)).map(optionUsage)].join(' ');
}

function commandUsage(command: Command): string {
  if (!command.parent) return `${PROGRAM} <command> [options]`;
  const path = commandPath(command);
  if (command.commands.length > 0) return `${PROGRAM} ${path} <${command.commands.map((sub) => sub.name()).join('|')}> ...`;
  return `${PROGRAM} ${path} ${usageTail(command)}`.trimEnd();
}

/** Every command that runs something (the groups' subcommands, `audit`, `token`), in the order they were added. */
function runnableCommands(command: Command): Command[] {
  return command.commands.filter((sub) => sub.name() !== 'help').flatMap((sub) => (sub.commands.length > 0 ? runnableCommands(sub) : [sub]));
}

function itemLines(items: Array<[string, string]>): string[] {
  const width = Math.max(...items.map(([term]) => term.length));
  return items.map(([term, description]) => `  ${term.padEnd(width)}  ${description}`);
}

function toolHelp(program: Command, helper: Help): string {
  const commands = runnableCommands(program);
  const adminOptions = commands.flatMap((command) => command.options).filter(isAdminOption);
  const shared = adminOptions.filter((option, i) => adminOptions.findIndex((other) => other.long === option.long) === i);
  return [
    `Usage: ${commandUsage(program)}`,
    '',
    'Operates the gateway through its admin API, authenticated with ADMIN_TOKEN.',
    '',
    'Commands:',
    ...itemLines(commands.map((command) => [`${commandPath(command)} ${usageTail(command)}`.trimEnd(), command.description()])),
    '',
    'Options of every command but token:',
    ...itemLines([
      ...shared.map((option): [string, string] => [helper.optionTerm(option).replace(/<([^>]+)>/, '$1'), option.description]),
      ['-h, --help', 'show help (of one command: "<command> --help")'],
    ]),
    '',
    'Lists (accounts list, keys list, webhooks list, webhooks deliveries, usage top, usage refused, audit) print a table, or JSON with --json;',
    'the other commands print JSON. Exit status: 0 done, 1 refused by the API or API unreachable, 2 usage error.',
    `Run "${PROGRAM} <command> --help" for one command.`,
    '',
  ].join('\n');
}

/** The help settings given to the program (commander passes them on to every command). */
export const HELP_CONFIGURATION: Partial<Help> = {
  commandUsage,
  formatHelp(command: Command, helper: Help): string {
    return command.parent ? Help.prototype.formatHelp.call(helper, command, helper) : toolHelp(command, helper);
  },
};
