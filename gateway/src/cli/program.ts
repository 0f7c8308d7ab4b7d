import { Command, CommanderError } from 'commander';
import { addCommands, type CommandContext } from './commands';
import { HELP_CONFIGURATION, commandPath } from './help';
import { EXIT_OK, EXIT_USAGE, PROGRAM, type CliIo, type Env } from './io';

/**
 * Runs the ops CLI on `argv` (the words after the program) and resolves to its exit status: 0 done,
 * 1 refused by the API or the API unreachable, 2 a mistake on the command line (commander's own,
 * or one the commands find), reported with the way to that command's help.
 */
export async function runCommandLine(argv: readonly string[], env: Env, io: CliIo): Promise<number> {
  const context: CommandContext = { env, io, exitCode: EXIT_OK };
  const program = new Command('admin')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .configureHelp(HELP_CONFIGURATION)
    .helpOption('-h, --help', 'show help');
  addCommands(program, context);
  for (const command of everyCommand(program)) command.showHelpAfterError(`Run "${PROGRAM} ${`${commandPath(command)} `.trimStart()}--help" for usage.`);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return context.exitCode;
  } catch (error) {
    // Help asked for ends with 0; help shown because something was missing, and every usage error, with 2.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    throw error;
  }
}

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}
