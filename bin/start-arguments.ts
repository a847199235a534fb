/**
 * The command line of `npm start` (bin/start-local.ts), parsed apart from the entry point so every
 * rule is unit-tested: `--port` or the PORT environment variable (the flag wins), `--data`,
 * `--assembly`, `--target` (else the LOCAL_TARGET environment variable, target.ts), `--iam
 * enforce|report` (IAM enforced, the default, or would-be denials only logged), `--clock
 * wall|virtual` (else the LOCAL_CLOCK environment variable; the runtime's clock, clock/), and
 * `--context key=value` (repeatable: CDK context for the synthesis,
 * e.g. `--context workflowVersion=2`; the runtime gives it no meaning).
 */
import { resolve } from 'node:path';
import { type ClockMode, clockModeOf } from '../lib/local-runtime/clock';
import { IAM_MODES, type IamMode } from '../lib/local-runtime/iam/authorizer';
import { defaultTargetFile } from '../lib/local-runtime/target';

export const DEFAULT_PORT = 3000;

export const START_USAGE =
  'Usage: npm start -- [--port N] [--data DIR] [--assembly DIR] [--target FILE] [--iam enforce|report] [--clock wall|virtual] [--context KEY=VALUE ...]';

export interface StartArguments {
  readonly port: number;
  readonly dataDir?: string;
  readonly assemblyDir?: string;
  readonly targetFile: string;
  /** IAM on every request (`--iam`): enforce (the default) or report. */
  readonly iam: IamMode;
  /** The runtime's clock (`--clock`, else LOCAL_CLOCK): wall (the default) or virtual. */
  readonly clock: ClockMode;
  /** CDK context for the synthesis (`--context key=value`, repeatable; the last value of a key wins). */
  readonly context: Readonly<Record<string, string>>;
}

const FLAGS = ['--port', '--data', '--assembly', '--target', '--iam', '--clock', '--context'] as const;

/** `key=value` of `--context` (also what `r key=value` takes while running). */
export function parseContextEntry(text: string): readonly [string, string] {
  const match = /^([A-Za-z][A-Za-z0-9:._-]*)=(.*)$/.exec(text);
  if (!match?.[1] || match[2] === undefined) {
    throw new Error(`--context takes key=value, got '${text}'`);
  }
  return [match[1], match[2]];
}

/** A port number from text (a flag or an environment variable named by `source`), or an error naming it. */
export function parsePort(text: string, source: string): number {
  const port = Number(text);
  if (text.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`${source} must be a port number (0-65535), got '${text}'`);
  }
  return port;
}

/** Relative paths are taken from `cwd`; the default target file is under `projectRoot`. */
export function parseStartArguments(
  argv: readonly string[],
  environment: Readonly<Record<string, string | undefined>>,
  paths: { readonly cwd: string; readonly projectRoot: string },
): StartArguments {
  const values = new Map<string, string>();
  const context: Record<string, string> = {};
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index] ?? '';
    if (!(FLAGS as readonly string[]).includes(flag))
      throw new Error(`Unknown argument '${flag}'. ${START_USAGE}`);
    const value = argv[index + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`);
    if (flag === '--context') {
      const [key, entry] = parseContextEntry(value);
      context[key] = entry;
    } else {
      values.set(flag, value);
    }
    index += 1;
  }
  const flagPort = values.get('--port');
  const environmentPort = environment.PORT;
  const port =
    flagPort !== undefined
      ? parsePort(flagPort, '--port')
      : environmentPort !== undefined && environmentPort !== ''
        ? parsePort(environmentPort, 'PORT')
        : DEFAULT_PORT;
  const dataDir = values.get('--data');
  const assemblyDir = values.get('--assembly');
  const targetFile = values.get('--target');
  const iam = values.get('--iam') ?? 'enforce';
  if (!(IAM_MODES as readonly string[]).includes(iam)) {
    throw new Error(`--iam must be ${IAM_MODES.join(' or ')}, got '${iam}'`);
  }
  const clockFlag = values.get('--clock');
  const clock =
    clockFlag !== undefined
      ? clockModeOf(clockFlag, '--clock')
      : clockModeOf(environment.LOCAL_CLOCK, 'LOCAL_CLOCK');
  return {
    port,
    clock,
    ...(dataDir ? { dataDir: resolve(paths.cwd, dataDir) } : {}),
    ...(assemblyDir ? { assemblyDir: resolve(paths.cwd, assemblyDir) } : {}),
    targetFile: targetFile ? resolve(paths.cwd, targetFile) : defaultTargetFile(environment, paths),
    iam: iam as IamMode,
    context,
  };
}
