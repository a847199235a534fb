#!/usr/bin/env node
/**
 * npm start: synthesizes the app with the local profile and runs its cloud assembly on the embedded
 * local runtime (lib/local-runtime): the same Lambda bundles and state machine definitions that
 * `cdk deploy` uploads, on local emulators.
 *
 *   npm start [-- --port 3000] [--data DIR] [--assembly DIR] [--target FILE]
 *
 *   --port N        port of the REST API (default 3000)
 *   --data DIR      persist DynamoDB tables and SQS queues and messages in DIR (default: in memory)
 *   --assembly DIR  run an already synthesized assembly instead of synthesizing (cdk synth -c profile=local)
 *   --target FILE   where to write the target description (default .local/target.json)
 */
import { resolve } from 'node:path';
import {
  DEFAULT_TARGET_FILE,
  PROJECT_ROOT,
  startLocalRuntime,
  synthesizeLocalAssembly,
} from '../lib/local-runtime';

// This machine's tools run on Node 20 while the deployed Lambdas run on nodejs22.x; the SDK's
// Node 20 end-of-support notice says nothing actionable here, so local tools silence it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

interface Arguments {
  readonly port: number;
  readonly dataDir?: string;
  readonly assemblyDir?: string;
  readonly targetFile: string;
}

function parseArguments(argv: readonly string[]): Arguments {
  const values = new Map<string, string>();
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index] ?? '';
    if (!['--port', '--data', '--assembly', '--target'].includes(flag)) {
      throw new Error(
        `Unknown argument '${flag}'. Usage: npm start -- [--port N] [--data DIR] [--assembly DIR] [--target FILE]`,
      );
    }
    const value = argv[index + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`);
    values.set(flag, value);
    index += 1;
  }
  const port = Number(values.get('--port') ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`--port must be a port number (0-65535), got '${values.get('--port')}'`);
  }
  const dataDir = values.get('--data');
  const assemblyDir = values.get('--assembly');
  return {
    port,
    ...(dataDir ? { dataDir: resolve(dataDir) } : {}),
    ...(assemblyDir ? { assemblyDir: resolve(assemblyDir) } : {}),
    targetFile: resolve(values.get('--target') ?? resolve(PROJECT_ROOT, DEFAULT_TARGET_FILE)),
  };
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2));
  const started = Date.now();
  const assemblyDir = args.assemblyDir ?? resolve(PROJECT_ROOT, '.local', 'cdk.out');
  if (!args.assemblyDir) {
    console.log(`Synthesizing with the local profile into ${assemblyDir} ...`);
    synthesizeLocalAssembly(assemblyDir, { echo: true });
  }
  const runtime = await startLocalRuntime({
    assemblyDir,
    port: args.port,
    targetFile: args.targetFile,
    functionLogDir: resolve(PROJECT_ROOT, '.local', 'logs'),
    ...(args.dataDir ? { dataDir: args.dataDir } : {}),
  });
  console.log(
    `Local runtime ready at ${runtime.target.apiUrl ?? '(no REST API)'} in ${Date.now() - started} ms ` +
      `(runtime ${runtime.startupMillis} ms; target ${args.targetFile}; function logs .local/logs/). Ctrl+C stops.`,
  );
  if (runtime.target.apiKey) {
    // The API requires a key locally as on AWS; print it so the first curl works.
    console.log(`API key (send as x-api-key): ${runtime.target.apiKey}`);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping the local runtime ...`);
    runtime.stop().then(
      () => process.exit(0),
      (error: Error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: Error) => {
  console.error(`Local runtime failed to start: ${error.message}`);
  process.exit(1);
});
