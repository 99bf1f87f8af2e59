/**
 * The production build as it would be deployed, made from this checkout without the network: a
 * directory holding dist/ (`npm run build`), package.json and a node_modules with only the
 * production dependency closure (`npm ls --omit=dev --all`), hard-linked from the installed
 * node_modules. Hard links, not symlinks: Node resolves a symlink to its real path and would then
 * find the devDependencies beside it. The node_modules is kept while package-lock.json is
 * unchanged (keyed by its hash); dist is rebuilt on every call (tsc is incremental).
 * The directory lies outside the checkout (in the OS temporary directory, one per checkout): Node
 * looks for a package in every parent directory's node_modules, so inside the checkout the built
 * services would still find the devDependencies. prepareProductionBuild refuses such a place.
 * The built services start with builtService(); test/support/builtStack.ts starts them all.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../cli/lib/projectRoot';
import { API_NODE_ARGS } from '../../api/nodeArgs';
import { WORKER_NODE_ARGS } from '../../workers/nodeArgs';
import { PREBUILT_BUNDLE_FILE } from '../../workers/prebuiltBundle';

export const DEFAULT_PRODUCTION_BUILD_DIR = path.join(
  os.tmpdir(),
  `pix-gateway-production-${crypto.createHash('sha256').update(projectRoot).digest('hex').slice(0, 12)}`,
);

export interface ProductionBuild {
  dir: string;
  /** Milliseconds: the tsc build, the dependency closure (0 when cached), the whole call. */
  timings: { buildMs: number; modulesMs: number; totalMs: number };
  /** Whether node_modules was reused from an earlier call. */
  modulesCached: boolean;
}

export async function prepareProductionBuild(opts: { dir?: string } = {}): Promise<ProductionBuild> {
  const dir = path.resolve(opts.dir ?? DEFAULT_PRODUCTION_BUILD_DIR);
  const started = Date.now();
  const above = nodeModulesAbove(dir);
  if (above) throw new Error(`${dir} is below ${above}: the built services would find devDependencies there`);
  fs.mkdirSync(dir, { recursive: true });

  await runNode([require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], 'tsc');
  // npm run build's second step: the workflow bundle the built worker reads (workers/prebuiltBundle.ts).
  await runNode(
    [path.join('dist', 'workers', 'bundleWorkflowsCli.js'), path.join('dist', PREBUILT_BUNDLE_FILE)],
    'the workflow bundle',
  );
  replaceDir(path.join(projectRoot, 'dist'), path.join(dir, 'dist'), (from, to) =>
    execFileSync('cp', ['-a', from, to]),
  );
  fs.copyFileSync(path.join(projectRoot, 'package.json'), path.join(dir, 'package.json'));
  fs.copyFileSync(path.join(projectRoot, 'package-lock.json'), path.join(dir, 'package-lock.json'));
  const built = Date.now();

  const lockHash = crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(projectRoot, 'package-lock.json')))
    .digest('hex');
  const stamp = path.join(dir, 'node_modules', '.production-lock-hash');
  const modulesCached = fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === lockHash;
  if (!modulesCached) {
    replaceDir(null, path.join(dir, 'node_modules'), (_from, to) => {
      linkProductionModules(to);
      fs.writeFileSync(path.join(to, '.production-lock-hash'), lockHash);
    });
  }
  const done = Date.now();
  return {
    dir,
    modulesCached,
    timings: { buildMs: built - started, modulesMs: done - built, totalMs: done - started },
  };
}

/**
 * One step of `npm run build` in the checkout, as a child process awaited, not a synchronous one:
 * the test runner starts PostgreSQL meanwhile.
 */
function runNode(args: string[], what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`npm run build (${what}) failed: exit ${code}`)),
    );
  });
}

function nodeModulesAbove(dir: string): string | undefined {
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'node_modules'))) return path.join(d, 'node_modules');
    if (path.dirname(d) === d) return undefined;
  }
}

/**
 * Makes `target` anew beside it and swaps it in with a rename, so a reader never sees half of it
 * and an interrupted call leaves the old one whole.
 */
function replaceDir(from: string | null, target: string, make: (from: string, to: string) => void): void {
  const fresh = `${target}.new-${process.pid}`;
  const old = `${target}.old-${process.pid}`;
  fs.rmSync(fresh, { recursive: true, force: true });
  make(from ?? '', fresh);
  if (fs.existsSync(target)) fs.renameSync(target, old);
  fs.renameSync(fresh, target);
  fs.rmSync(old, { recursive: true, force: true });
}

/** Hard-links every package of the production closure into `to`, each without its nested node_modules (listed on their own). */
function linkProductionModules(to: string): void {
  const installed = path.join(projectRoot, 'node_modules');
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: projectRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith(installed + path.sep));
  fs.mkdirSync(to, { recursive: true });
  for (const pkg of new Set(listed)) linkTree(pkg, path.join(to, path.relative(installed, pkg)), true);
}

function linkTree(from: string, to: string, packageRoot: boolean): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (packageRoot && entry.name === 'node_modules') continue;
    const src = path.join(from, entry.name);
    const dest = path.join(to, entry.name);
    if (entry.isDirectory()) linkTree(src, dest, false);
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dest);
    else linkOrCopy(src, dest);
  }
}

export type BuiltServiceName = 'api' | 'worker' | 'sandbox';

/**
 * How to start a service of the build in `dir`: what docker-compose.yml runs, with the same heap
 * caps; `extraNodeArgs` (the bench's profiling flags) go before the entry point.
 */
export function builtService(
  name: BuiltServiceName,
  dir: string = DEFAULT_PRODUCTION_BUILD_DIR,
  extraNodeArgs: readonly string[] = [],
): { command: string; args: string[]; cwd: string } {
  const [flags, entry] = {
    api: [API_NODE_ARGS, 'dist/api/server.js'] as const,
    worker: [WORKER_NODE_ARGS, 'dist/workers/main.js'] as const,
    sandbox: [[], 'dist/sandbox/server.js'] as const,
  }[name];
  return { command: process.execPath, args: [...flags, ...extraNodeArgs, entry], cwd: dir };
}

/**
 * The build's operator CLI (`node dist/cli/gateway.js`) with exactly `env`, as an operator runs
 * it; its stdout. A failure names the command, never its arguments (a password may be one).
 */
export function runBuiltCli(dir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['dist/cli/gateway.js', ...args], { cwd: dir, env }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`gateway ${args.slice(0, 2).join(' ')} failed: ${stderr || err.message}`))
        : resolve(stdout),
    ),
  );
}

/** A hard link (instant, no space), or a copy when the build directory is on another file system. */
function linkOrCopy(src: string, dest: string): void {
  try {
    fs.linkSync(src, dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    fs.copyFileSync(src, dest);
  }
}
