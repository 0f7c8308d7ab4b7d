import { EXIT_FAILED, type CliIo, type Env } from './io';
import { runCommandLine } from './program';

/**
 * The ops CLI: `npm run admin -- <command>`. It talks to the admin API over HTTP (so every rule
 * lives in one place, the gateway), except `token`, which signs locally. Built on commander:
 * `commands.ts` declares the commands, `help.ts` words the help, `admin-client.ts` calls the API,
 * `service-token.ts` signs. `runCli` takes everything it needs as arguments, so tests can drive it
 * in-process as well as through the compiled file.
 */
export type { CliIo };

export function runCli(argv: readonly string[], env: Env, io: CliIo): Promise<number> {
  return runCommandLine(argv, env, io);
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
