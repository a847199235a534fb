#!/usr/bin/env node
/**
 * npm start: synthesizes the app with the local profile and runs its cloud assembly on the embedded
 * local runtime (lib/local-runtime): the same Lambda bundles and state machine definitions that
 * `cdk deploy` uploads, on local emulators.
 *
 *   npm start [-- --port 3000] [--data DIR] [--assembly DIR] [--target FILE] [--context KEY=VALUE ...]
 *
 *   --port N        port of the orders API (default: $PORT, else 3000); the flag wins over PORT.
 *                   The delivery API takes N+1 (app-api-port-order.ts: by stack name, whatever
 *                   the assembly's order of stacks)
 *   --data DIR      persist DynamoDB tables, SQS queues and messages, the generated API key and the
 *                   local identities' secrets in DIR (default: in memory)
 *   --assembly DIR  run an already synthesized assembly instead of synthesizing (cdk synth -c profile=local)
 *   --target FILE   where to write the target description (default: $LOCAL_TARGET, else
 *                   .local/target.json; its apiUrl and apiKey are the orders API's)
 *   --clock MODE    wall (default; else $LOCAL_CLOCK) or virtual: time moves only when the system
 *                   is quiet, then jumps to the next due timer (lib/local-runtime/clock/README.md)
 *   --context K=V   CDK context for the synthesis (repeatable), e.g. --context workflowVersion=2
 *
 * Redeploy while running (needs --data, whose tables, queues and messages the new app keeps):
 * type `r` and Enter (or send SIGHUP) to synthesize again with the same context and redeploy;
 * `r key=value ...` adds or changes context first, e.g. `r workflowVersion=2` rolls out workflow
 * version 2 (docs/deploy.md, Workflow versions). Step Functions executions do not survive a local redeploy;
 * the app's supervisor recovers their orders.
 *
 * The app's order transition log (lib/scheduler-agent-supervisor/local) is plugged into the runtime
 * here, as an observer: the runtime itself knows no app. So is the operator console
 * (bin/console-server.ts, console/README.md): its page and backend listen on
 * http://127.0.0.1:$CONSOLE_PORT/console/ (default 3100, clear of the APIs, which take PORT, PORT+1, ...; 0 picks a free port).
 */
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { RequesterRegistry } from '../lambdas/choreography/contracts/requesters';
import type { DroneDeliveryOutput } from '../lib/choreography/stack';
import {
  createClock,
  DEFAULT_LOCAL_REGION,
  type LocalRuntime,
  type LocalTarget,
  PROJECT_ROOT,
  readCloudAssembly,
  startLocalRuntime,
  synthesizeLocalAssembly,
} from '../lib/local-runtime';
import { orderTransitionLog } from '../lib/scheduler-agent-supervisor/local/transition-log';
import type { ClientOutput, StackOutput } from '../lib/scheduler-agent-supervisor/stack';
import { APP_API_PORT_ORDER } from './app-api-port-order';
import { appLocalUsers } from './app-local-users';
import { buildConsoleAssets } from './console-build';
import {
  type ConsoleBackend,
  type ConsoleServer,
  DEFAULT_CONSOLE_PORT,
  localConsoleBackend,
  startConsoleServer,
} from './console-server';
import { parseContextEntry, parsePort, parseStartArguments, type StartArguments } from './start-arguments';

/** The order app's Clients output, checked against the stack's name at compile time (a type-only import keeps aws-cdk-lib out of this process). */
const CLIENTS_OUTPUT: (typeof StackOutput)['Clients'] = 'Clients';
/** The delivery app's Requesters output (each requester and its key id), checked the same way. */
const REQUESTERS_OUTPUT: (typeof DroneDeliveryOutput)['Requesters'] = 'Requesters';

/** Where npm start records IAM denials and, when it stops, what was granted and used (npm run iam:report). */
const IAM_RECORD_DIR = resolve(PROJECT_ROOT, '.local', 'iam');

// This machine's tools run on Node 20 while the deployed Lambdas run on nodejs22.x; the SDK's
// Node 20 end-of-support notice says nothing actionable here, so local tools silence it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * How to reach what just started, printed once: the IAM mode, each API's URL and keys (each API
 * requires its own stack's key locally as on AWS) with each client's reply queue and the identity
 * that may read it, and the operator identity the AWS_IAM routes take. So the first curl works.
 */
function printAccess(target: LocalTarget, args: Pick<StartArguments, 'iam' | 'dataDir'>): void {
  console.log(
    args.iam === 'enforce'
      ? `IAM enforced on every request; denials in ${IAM_RECORD_DIR}/denials.jsonl (--iam report only logs them)`
      : `IAM in report mode: would-be denials are logged and recorded in ${IAM_RECORD_DIR}/denials.jsonl, not refused`,
  );
  // Each API requires its own stack's key locally as on AWS; print them so the first curl works.
  const kept = args.dataDir ? `kept in ${args.dataDir}` : 'new at each start without --data';
  const apis = Object.entries(target.apis ?? {});
  if (apis.length > 0) {
    for (const [stackName, api] of apis) {
      console.log(`${stackName} API ${api.url} (x-api-key; ${kept}): ${api.apiKeys[0] ?? '(none)'}`);
      for (const client of clientsOf(target.stackOutputs?.[stackName])) {
        const key = api.apiKeyIds?.[client.apiKeyId] ?? '(unknown key)';
        // The reply queue's policy denies reading to all but the client's principal, enforced locally.
        const reader = Object.values(target.identities ?? {}).find(
          (identity) => identity.userArn === client.principal,
        );
        const readAs = reader
          ? ` (read as AWS_ACCESS_KEY_ID=${reader.accessKeyId} AWS_SECRET_ACCESS_KEY=${reader.secretAccessKey})`
          : '';
        console.log(
          `  client ${client.clientId}: x-api-key ${key}; replies ${client.replyQueueUrl}${readAs}`,
        );
      }
      // Each requester sees only its own deliveries (another's answers 404).
      for (const requester of jsonListOutput<RequesterRegistry[number]>(
        target.stackOutputs?.[stackName],
        REQUESTERS_OUTPUT,
      )) {
        const key = api.apiKeyIds?.[requester.apiKeyId] ?? '(unknown key)';
        console.log(`  requester ${requester.requesterId}: x-api-key ${key}`);
      }
    }
  } else if (target.apiKey) {
    console.log(`API key (send as x-api-key; ${kept}): ${target.apiKey}`);
  }
  // Methods with AWS_IAM authorization (the operator routes) take a SigV4 signature of a local
  // identity; the runtime checks the signature only, no IAM policy.
  const operator = target.identities?.operator;
  if (operator) {
    console.log(
      `Operator identity for AWS_IAM routes (SigV4, service execute-api, region ${target.region}; ${kept}): ` +
        `AWS_ACCESS_KEY_ID=${operator.accessKeyId} AWS_SECRET_ACCESS_KEY=${operator.secretAccessKey} (${operator.userArn}); ` +
        'npm run orders -- ops ... signs with it',
    );
  }
}

async function main(): Promise<void> {
  const args = parseStartArguments(process.argv.slice(2), process.env, {
    cwd: process.cwd(),
    projectRoot: PROJECT_ROOT,
  });
  const started = Date.now();
  const assemblyDir = args.assemblyDir ?? resolve(PROJECT_ROOT, '.local', 'cdk.out');
  const context: Record<string, string> = { ...args.context };
  if (!args.assemblyDir) {
    console.log(`Synthesizing with the local profile into ${assemblyDir} ...`);
    synthesizeLocalAssembly(assemblyDir, { echo: true, context });
  }
  let runtime: LocalRuntime = await startLocalRuntime({
    assemblyDir,
    port: args.port,
    apiPortOrder: APP_API_PORT_ORDER,
    // The operator user holds each wing's OperatorAccess policy, as operators do on AWS.
    users: appLocalUsers(
      DEFAULT_LOCAL_REGION,
      readCloudAssembly(assemblyDir).stacks.map((stack) => stack.stackName),
    ),
    targetFile: args.targetFile,
    functionLogDir: resolve(PROJECT_ROOT, '.local', 'logs'),
    observers: [orderTransitionLog()],
    iam: args.iam,
    clock: createClock(args.clock, '--clock'),
    iamRecordDir: IAM_RECORD_DIR,
    ...(args.dataDir ? { dataDir: args.dataDir } : {}),
  });
  console.log(
    `Local runtime ready at ${runtime.target.apiUrl ?? '(no REST API)'} in ${Date.now() - started} ms ` +
      `(runtime ${runtime.startupMillis} ms; target ${args.targetFile}; function logs .local/logs/). Ctrl+C stops.`,
  );
  printAccess(runtime.target, args);
  // The console signs with the operator identity server-side: the page never sees a secret.
  let consoleBackend = localConsoleBackend(runtime.target);
  const operatorConsole = consoleBackend && (await startOperatorConsole(runtime, () => consoleBackend));
  console.log(
    operatorConsole
      ? `Operator console: ${operatorConsole.url}`
      : 'Operator console: not started (this app has no operator API)',
  );
  let stopping = false;
  // A redeploy synthesizes into the other of two directories, so the running app's bundles are
  // never overwritten under it.
  const assemblies = [
    resolve(PROJECT_ROOT, '.local', 'cdk.out'),
    resolve(PROJECT_ROOT, '.local', 'cdk.out.next'),
  ];
  let deployed = assemblyDir;
  let redeploying: Promise<void> | undefined;
  const redeploy = (changes: readonly string[]) => {
    if (stopping || redeploying) return;
    if (!args.dataDir) {
      console.log('Redeploy keeps the app data: start with --data DIR to redeploy while running.');
      return;
    }
    redeploying = (async () => {
      try {
        for (const change of changes) {
          const [key, value] = parseContextEntry(change);
          context[key] = value;
        }
        const next = assemblies.find((dir) => dir !== deployed) ?? assemblies[0] ?? assemblyDir;
        const shown = Object.entries(context)
          .map(([key, value]) => `-c ${key}=${value}`)
          .join(' ');
        console.log(`Redeploy: synthesizing ${shown || '(no extra context)'} into ${next} ...`);
        synthesizeLocalAssembly(next, { context });
        const started = Date.now();
        runtime = await runtime.redeploy(next);
        deployed = next;
        // The emulators' endpoints may have moved: the console calls the new ones.
        consoleBackend?.close();
        consoleBackend = localConsoleBackend(runtime.target);
        console.log(
          `Redeployed in ${Date.now() - started} ms: ${runtime.target.apiUrl ?? '(no REST API)'} (target ${args.targetFile}).`,
        );
      } catch (error) {
        console.error(`Redeploy failed: ${(error as Error).message}`);
      } finally {
        redeploying = undefined;
      }
    })();
  };
  process.on('SIGHUP', () => redeploy([]));
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [command, ...changes] = line.trim().split(/\s+/);
    if (command === 'r') redeploy(changes);
    else if (command) console.log('Type `r` [key=value ...] and Enter to synthesize again and redeploy.');
  });
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping the local runtime ...`);
    (redeploying ?? Promise.resolve())
      .then(() => operatorConsole?.stop())
      .then(() => consoleBackend?.close())
      .then(() => runtime.stop())
      .then(
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

/**
 * Builds and serves the operator console (bin/console-server.ts). CONSOLE_PORT names its port;
 * unset, it takes DEFAULT_CONSOLE_PORT, or a free one when another process holds that. If it cannot
 * start, the runtime is stopped first: its emulators are child processes, not to be orphaned.
 */
async function startOperatorConsole(
  runtime: LocalRuntime,
  backend: () => ConsoleBackend | undefined,
): Promise<ConsoleServer> {
  const named = process.env.CONSOLE_PORT;
  try {
    buildConsoleAssets();
    return await startConsoleServer({
      backend,
      ...(named === undefined
        ? { port: DEFAULT_CONSOLE_PORT, orFreePort: true }
        : { port: parsePort(named, 'CONSOLE_PORT') }),
    });
  } catch (error) {
    await runtime.stop();
    throw new Error(`the operator console: ${(error as Error).message}`);
  }
}

/** The Clients output of a stack that has one (the order app): each client's key id and reply queue. */
function clientsOf(outputs: Readonly<Record<string, string>> | undefined): ClientOutput[] {
  return jsonListOutput<ClientOutput>(outputs, CLIENTS_OUTPUT);
}

/** A stack output holding a JSON list (the orders' Clients, the deliveries' Requesters); [] when absent. */
function jsonListOutput<T>(outputs: Readonly<Record<string, string>> | undefined, name: string): T[] {
  const raw = outputs?.[name];
  if (raw === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? (parsed as T[]) : [];
  } catch {
    console.log(`The ${name} output is not JSON: ${raw}`);
    return [];
  }
}

main().catch((error: Error) => {
  console.error(`Local runtime failed to start: ${error.message}`);
  process.exit(1);
});
