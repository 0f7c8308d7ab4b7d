/**
 * `npm start`: the whole system in the foreground, the pets-service first, then the gateway.
 * Ctrl-C or SIGTERM stops both; if either dies, the other is stopped too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { EnvReader } from '../shared/src/env';
import { developmentSecret } from '../shared/src/settings';
import { GATEWAY_NODE_FLAGS } from '../gateway/src/node-flags';
import { petsAddressOf } from './pets-address';

const root = path.resolve(__dirname, '..', '..');
const env: NodeJS.ProcessEnv = { ...process.env };
if (!new EnvReader(env).production && !env.INTERNAL_JWT_SECRET) {
  // Both processes (and `npm run admin -- token`) read the same generated secret.
  env.INTERNAL_JWT_SECRET = developmentSecret(path.join(root, 'data', '.dev-internal-jwt-secret'));
}
// The gateway calls the pets-service started here (PETS_HOST/PETS_PORT), unless PETS_URL says otherwise.
const pets = petsAddressOf(env);
env.PETS_URL = pets.petsUrl;

const children: ChildProcess[] = [];
let stopping = false;

function run(name: string, script: string, nodeFlags: readonly string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, path.join(root, 'dist', script)], { cwd: root, env, stdio: 'inherit' });
  child.once('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); stopping the system\n`);
      stop(code === 0 ? 1 : (code ?? 1));
    }
  });
  children.push(child);
  return child;
}

function stop(exitCode: number): void {
  stopping = true;
  const alive = children.filter((child) => child.exitCode === null && child.signalCode === null);
  if (alive.length === 0) process.exit(exitCode);
  let remaining = alive.length;
  for (const child of alive) {
    child.once('exit', () => {
      remaining -= 1;
      if (remaining === 0) process.exit(exitCode);
    });
    child.kill('SIGTERM');
  }
  setTimeout(() => {
    for (const child of alive) child.kill('SIGKILL');
    process.exit(exitCode || 1);
  }, 10_000).unref();
}

async function waitForPets(): Promise<void> {
  const url = pets.healthUrl;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && !stopping) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!stopping) throw new Error(`the pets-service did not become healthy at ${url}`);
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

run('pets-service', 'pets-service/src/main.js');
waitForPets()
  .then(() => {
    if (!stopping) run('gateway', 'gateway/src/main.js', GATEWAY_NODE_FLAGS);
  })
  .catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    stop(1);
  });
