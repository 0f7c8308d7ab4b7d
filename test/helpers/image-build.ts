import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * The Docker image's build, replayed without a Docker engine: the Dockerfile is read, each stage's
 * COPY lines copy exactly those files (minus `.dockerignore`) into a folder standing for the
 * stage's WORKDIR, and its RUN lines are replayed by meaning: `npm install` links the checkout's
 * node_modules, `tsc -p FILE` (or `npm run S` that is one) compiles. A RUN line this file does not
 * know fails the replay, so a new kind of build step is taught here rather than silently skipped.
 */

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** The Dockerfile's stages, continuation lines joined and comments dropped. */
export function parseDockerfile(text: string): Stage[] {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const stages: Stage[] = [];
  for (const line of lines.map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [, image = '', name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) ?? [];
      stages.push({ image, name, instructions: [] });
    } else if (stages.length === 0) {
      if (upper !== 'ARG') throw new Error(`Dockerfile: ${upper} before the first FROM`);
    } else {
      stages.at(-1)!.instructions.push({ keyword: upper, args });
    }
  }
  return stages;
}

/** A JSON array (`["a", "b"]`) or words, as Docker reads the exec and shell forms. */
export function argumentsOf(args: string): string[] {
  return args.trim().startsWith('[') ? (JSON.parse(args) as string[]) : args.trim().split(/\s+/);
}

/** The `.dockerignore` rules as a test on a context-relative path (`*`, `**`, `?`; `!` exceptions are not used here). */
export function dockerignoreOf(text: string): (relativePath: string) => boolean {
  const patterns = text
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/^\/+|\/+$/g, ''))
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (patterns.some((pattern) => pattern.startsWith('!'))) throw new Error('.dockerignore: exceptions (!) are not replayed by this test yet');
  const expressions = patterns.map(
    (pattern) =>
      new RegExp(
        `^${pattern
          .split(/(\*\*|\*|\?)/)
          .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part === '?' ? '[^/]' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
          .join('')}(?:/.*)?$`,
      ),
  );
  return (relativePath) => expressions.some((expression) => expression.test(relativePath));
}

export interface ReplayedImage {
  /** Per stage (by name or index): the folder standing for its WORKDIR. */
  stageDirs: Map<string, string>;
  /** The final stage's folder: what the image holds at its WORKDIR. */
  imageDir: string;
  /** The final stage's ENV. */
  env: Record<string, string>;
  /** The final stage's CMD. */
  command: string[];
  /** The tsconfig each `tsc -p` compiled with, and its outcome. */
  compilations: Array<{ tsconfig: string; status: number | null; output: string }>;
  /** Whether a stage ran `npm prune --omit=dev`: devDependencies are gone from its node_modules. */
  prunedDevDependencies: boolean;
}

/**
 * Replays the Dockerfile at `context` into `workspace` (one folder per stage). `nodeModules` is the
 * checkout's installed node_modules, linked where the Dockerfile runs `npm install`.
 */
export function replayDockerfile(context: string, workspace: string, nodeModules: string): ReplayedImage {
  const stages = parseDockerfile(readFileSync(path.join(context, 'Dockerfile'), 'utf8'));
  const ignorePath = path.join(context, '.dockerignore');
  const ignored = dockerignoreOf(existsSync(ignorePath) ? readFileSync(ignorePath, 'utf8') : '');
  const stageDirs = new Map<string, string>();
  const result: ReplayedImage = { stageDirs, imageDir: '', env: {}, command: [], compilations: [], prunedDevDependencies: false };

  stages.forEach((stage, index) => {
    const dir = path.join(workspace, `stage-${index}`);
    mkdirSync(dir, { recursive: true });
    let workdir = '/';
    const env: Record<string, string> = {};
    /** A path inside the stage (absolute, or relative to WORKDIR) to its place in `dir`. */
    const inStage = (target: string) => path.join(dir, path.posix.resolve(workdir, target));

    for (const { keyword, args } of stage.instructions) {
      if (keyword === 'WORKDIR') {
        workdir = path.posix.resolve(workdir, args);
        mkdirSync(inStage('.'), { recursive: true });
      } else if (keyword === 'ENV') {
        const [, name = '', value = ''] = /^(\S+?)(?:=|\s+)(.*)$/.exec(args) ?? [];
        env[name] = value;
      } else if (keyword === 'COPY') {
        copy(args, { context, ignored, stageDirs, destination: (target) => inStage(target) });
      } else if (keyword === 'RUN') {
        for (const command of args.split('&&').map((part) => part.trim())) runStep(command, inStage('.'), nodeModules, result);
      } else if (keyword === 'CMD') {
        result.command = argumentsOf(args);
      } else if (!['USER', 'EXPOSE', 'ARG', 'LABEL', 'HEALTHCHECK'].includes(keyword)) {
        throw new Error(`Dockerfile: ${keyword} is not replayed by this test yet`);
      }
    }
    // The folder the next stages see this one as: its root (COPY --from names absolute paths).
    stageDirs.set(stage.name ?? String(index), dir);
    result.imageDir = inStage('.');
    result.env = env;
  });
  return result;
}

interface CopyContext {
  context: string;
  ignored: (relativePath: string) => boolean;
  stageDirs: Map<string, string>;
  destination: (target: string) => string;
}

function copy(args: string, { context, ignored, stageDirs, destination }: CopyContext): void {
  const words = argumentsOf(args);
  const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
  const [target, ...sourcesReversed] = words.filter((word) => !word.startsWith('--')).reverse();
  const sources = sourcesReversed.reverse();
  if (!target || sources.length === 0) throw new Error(`COPY ${args}: no source or destination`);
  const intoFolder = target.endsWith('/') || sources.length > 1;
  for (const source of sources) {
    if (/[*?[]/.test(source)) throw new Error(`COPY ${args}: wildcards are not replayed by this test yet`);
    let origin: string;
    if (from === undefined) {
      origin = path.join(context, source);
    } else {
      const stageRoot = stageDirs.get(from);
      if (!stageRoot) throw new Error(`COPY --from=${from}: no such earlier stage`);
      origin = path.join(stageRoot, path.posix.resolve('/', source));
    }
    if (!existsSync(origin) && !isLink(origin)) throw new Error(`COPY ${args}: ${source} does not exist`);
    const destinationPath = destination(intoFolder ? path.posix.join(target, path.posix.basename(source)) : target);
    copyTree(origin, destinationPath, from === undefined ? (file) => ignored(path.relative(context, file).split(path.sep).join('/')) : () => false);
  }
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Copies a file, a folder's contents (as COPY does) or a symbolic link as it is. */
function copyTree(origin: string, destination: string, skip: (file: string) => boolean): void {
  if (skip(origin)) return;
  mkdirSync(path.dirname(destination), { recursive: true });
  if (isLink(origin)) {
    symlinkSync(readlinkSync(origin), destination);
  } else if (lstatSync(origin).isDirectory()) {
    mkdirSync(destination, { recursive: true });
    for (const entry of readdirSync(origin)) copyTree(path.join(origin, entry), path.join(destination, entry), skip);
  } else {
    cpSync(origin, destination);
  }
}

function runStep(command: string, dir: string, nodeModules: string, result: ReplayedImage): void {
  if (/^(apt-get|rm -rf \/var\/lib\/apt)\b/.test(command)) return; // system packages for native modules: the checkout has them built
  if (/^npm (install|ci)\b/.test(command)) {
    symlinkSync(nodeModules, path.join(dir, 'node_modules'));
    return;
  }
  if (/^npm prune --omit=dev$/.test(command)) {
    result.prunedDevDependencies = true;
    return;
  }
  const script = /^npm run (\S+)$/.exec(command)?.[1];
  const resolved = script === undefined ? command : (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts[script];
  const tsconfig = /^(?:npx )?tsc -p (\S+)$/.exec(resolved ?? '')?.[1];
  if (tsconfig === undefined) throw new Error(`RUN ${command}: this test does not know what it does; teach test/helpers/image-build.ts`);
  const run = spawnSync(process.execPath, [path.join(nodeModules, 'typescript', 'bin', 'tsc'), '-p', tsconfig], { cwd: dir, encoding: 'utf8' });
  result.compilations.push({ tsconfig, status: run.status, output: `${run.stdout}${run.stderr}` });
}
