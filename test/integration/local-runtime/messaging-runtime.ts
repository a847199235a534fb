/**
 * The messaging fixture app (fixtures/messaging-app.ts) synthesized and run by the local runtime,
 * for the test files that drive its SNS, EventBridge and API Gateway front doors.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { type LocalRuntime, type RuntimeClock, startLocalRuntime } from '../../../lib/local-runtime';
import { synthesizeMessagingApp } from './fixtures/messaging-app';

export interface MessagingRuntime {
  /** The running runtime (after `redeploy`, the new one). */
  readonly runtime: LocalRuntime;
  readonly outputs: Readonly<Record<string, string>>;
  readonly sqs: SQSClient;
  readonly logLines: readonly string[];
  /** Where the runtime wrote its target description. */
  readonly targetFile: string;
  readonly clientConfig: { region: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  /**
   * Runs the AWS CLI (`aws <service> <args> --endpoint-url <the runtime's endpoint>`) with the
   * runtime's credentials and nothing else of the host's AWS settings; resolves with its JSON output.
   */
  awsCli(service: 'sns' | 'events', ...args: string[]): Promise<unknown>;
  /** Receives what a queue holds now (short polls until one comes back empty), deleting it. */
  drain(queueUrl: string): Promise<Message[]>;
  /** Redeploys the same assembly (needs `keepData`); `runtime` is the new runtime from then on. */
  redeploy(): Promise<LocalRuntime>;
  stop(): Promise<void>;
}

export interface MessagingRuntimeOptions {
  /** @default 0 */
  readonly port?: number;
  /** @default - the assembly's order */
  readonly apiPortOrder?: readonly string[];
  /** Keep the data in a directory of the fixture's own, so it can be redeployed. @default false */
  readonly keepData?: boolean;
  /** Local IAM users (the runtime's `users`), listed in the target's identities. @default - none */
  readonly users?: Readonly<Record<string, { readonly managedPolicyNames?: readonly string[] }>>;
  /** The runtime's clock. @default - the runtime's default */
  readonly clock?: RuntimeClock;
}

export async function startMessagingRuntime(
  options: MessagingRuntimeOptions = {},
): Promise<MessagingRuntime> {
  const workDir = mkdtempSync(join(tmpdir(), 'messaging-runtime-'));
  synthesizeMessagingApp(join(workDir, 'cdk.out'));
  const logLines: string[] = [];
  const targetFile = join(workDir, 'target.json');
  let runtime: LocalRuntime;
  try {
    runtime = await startLocalRuntime({
      assemblyDir: join(workDir, 'cdk.out'),
      port: options.port ?? 0,
      targetFile,
      log: (line) => logLines.push(line),
      functionLogDir: join(workDir, 'logs'),
      ...(options.apiPortOrder && { apiPortOrder: options.apiPortOrder }),
      ...(options.keepData && { dataDir: join(workDir, 'data') }),
      ...(options.users && { users: options.users }),
      ...(options.clock && { clock: options.clock }),
    });
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
  const clientConfig = { region: runtime.target.region, credentials: { ...runtime.target.credentials } };
  const sqs = new SQSClient({ ...clientConfig, endpoint: runtime.target.endpoints.sqs });
  return {
    get runtime() {
      return runtime;
    },
    outputs: runtime.target.outputs,
    sqs,
    logLines,
    targetFile,
    clientConfig,
    awsCli: async (service, ...args) => {
      const { stdout } = await promisify(execFile)(
        'aws',
        [
          service,
          ...args,
          '--endpoint-url',
          runtime.target.endpoints[service],
          '--region',
          runtime.target.region,
          '--output',
          'json',
        ],
        {
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            AWS_ACCESS_KEY_ID: runtime.target.credentials.accessKeyId,
            AWS_SECRET_ACCESS_KEY: runtime.target.credentials.secretAccessKey,
          },
        },
      );
      return stdout.trim() === '' ? undefined : (JSON.parse(stdout) as unknown);
    },
    drain: async (queueUrl) => {
      const received: Message[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
          }),
        );
        if (Messages.length === 0) return received;
        received.push(...Messages);
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: Messages.map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle,
            })),
          }),
        );
      }
    },
    redeploy: async () => {
      runtime = await runtime.redeploy(join(workDir, 'cdk.out'));
      return runtime;
    },
    stop: async () => {
      sqs.destroy();
      await runtime.stop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
