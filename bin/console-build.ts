/**
 * The operator console's page build (Vite; console/vite.config.mts), for the local backend
 * (bin/console-server.ts, served under /console/) and for the deployed console (bin/app.ts with
 * `-c console=true`, served at the root of its CloudFront distribution). Kept apart from the
 * backend so a synth loads no SDK client to build the page.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const PROJECT_ROOT = resolve(__dirname, '..');

/** Where the page for the local backend is written (under .local/, which git ignores: build output is never committed). */
export const CONSOLE_ASSETS_DIR = resolve(PROJECT_ROOT, '.local', 'console');

/** Where the page for the deployed console is written (uploaded by the stack's BucketDeployment). */
export const DEPLOYED_CONSOLE_ASSETS_DIR = resolve(PROJECT_ROOT, '.local', 'console-deployed');

export interface ConsoleBuildOptions {
  /** @default CONSOLE_ASSETS_DIR */
  readonly outDir?: string;
  /** The path the page is served under. @default '/console/' (the local backend's; the deployed console's is '/') */
  readonly base?: string;
}

/**
 * Builds the page with Vite into `outDir` (a few seconds; no network). Run at every start and every
 * synth that deploys the console rather than kept: build output is never committed, and a stale
 * page typed against old contracts would lie.
 */
export function buildConsoleAssets(options: ConsoleBuildOptions = {}): string {
  const outDir = options.outDir ?? CONSOLE_ASSETS_DIR;
  const vite = resolve(PROJECT_ROOT, 'node_modules', '.bin', 'vite');
  execFileSync(
    vite,
    [
      'build',
      '--config',
      'console/vite.config.mts',
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
      ...(options.base !== undefined ? ['--base', options.base] : []),
    ],
    // stdout to stderr: `cdk synth` prints the template on stdout.
    { cwd: PROJECT_ROOT, stdio: ['ignore', process.stderr, 'inherit'] },
  );
  return outDir;
}

/** The deployed console's page: served at the root of its distribution. */
export function buildDeployedConsoleAssets(): string {
  return buildConsoleAssets({ outDir: DEPLOYED_CONSOLE_ASSETS_DIR, base: '/' });
}

// `npm run console:build [-- --deployed]`: the page alone (npm start and a console synth build it too).
if (require.main === module) {
  const deployed = process.argv[2] === '--deployed';
  if (process.argv[2] !== undefined && !deployed) {
    console.error('Usage: tsx bin/console-build.ts [--deployed]');
    process.exit(2);
  }
  const outDir = deployed ? buildDeployedConsoleAssets() : buildConsoleAssets();
  console.log(`Built the operator console into ${outDir}`);
}
