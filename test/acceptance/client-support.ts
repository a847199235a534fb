/**
 * What every black-box client of the acceptance suites shares: SDK client settings from a target
 * description, an API key's value by its id, calling the app's API (with its API key), and taking a suite's own messages from a
 * queue that others read too (the operator alert inbox).
 */
import { APIGatewayClient, GetApiKeyCommand } from '@aws-sdk/client-api-gateway';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { TargetDescription } from './target';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Region, credentials (emulators accept any) and endpoint of one service of the target. */
export function awsClientConfig(
  target: TargetDescription,
  service: keyof TargetDescription['endpoints'],
): { region: string; credentials?: typeof LOCAL_CREDENTIALS; endpoint?: string } {
  const endpoint = target.endpoints[service];
  return {
    region: target.region,
    ...(target.kind === 'aws' ? {} : { credentials: LOCAL_CREDENTIALS }),
    ...(endpoint ? { endpoint } : {}),
  };
}

/** The value of an API key by its id: the local runtime's from the target description, or API Gateway's. */
export async function apiKeyValue(target: TargetDescription, apiKeyId: string): Promise<string> {
  const local = target.apiKeysById?.[apiKeyId];
  if (local) return local;
  const gateway = new APIGatewayClient({ region: target.region });
  const { value } = await gateway.send(new GetApiKeyCommand({ apiKey: apiKeyId, includeValue: true }));
  gateway.destroy();
  if (!value) throw new Error(`API key ${apiKeyId} has no value`);
  return value;
}

/** One call to the app's API (outputs.ApiUrl); a JSON body is parsed, anything else kept as text. */
export async function apiRequest(
  target: TargetDescription,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const base = target.outputs.ApiUrl.replace(/\/+$/, '');
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(target.apiKey ? { 'x-api-key': target.apiKey } : {}),
      ...headers,
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Non-JSON bodies are returned as text; the tests assert JSON where the contract requires it.
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/**
 * Receives until a round brings nothing new (at most `rounds` rounds: by default until the queue
 * has nothing more to give), deleting the messages the predicate matches and returning their
 * bodies. The others stay invisible during the rounds (so paging moves on) and are made visible
 * again at the end. On AWS a receive waits up to a second: a short poll samples only part of the
 * servers and can miss messages. A predicate that throws (a body that is not JSON) does not match.
 * The alert inbox is shared by every file and gathers the whole run's alerts and alarm
 * notifications: a fixed depth (first 100, then 1,000 messages) left an order's alert unseen behind
 * the others. Calls on one queue from this process take turns: two at once (the alarm file's
 * concurrent scenarios) each hid the other's message for the length of its scan, and polled past
 * it again and again. The others are hidden for SQS's longest visibility timeout: on the virtual
 * clock an idle system moves minutes of time between two of this client's calls (it holds no
 * activity), and with 30 s the first pages were visible again (and their handles stale) before the
 * last was read.
 */
export function takeMatching(
  sqs: SQSClient,
  target: TargetDescription,
  queueUrl: string,
  matches: (body: string) => boolean,
  rounds = Number.POSITIVE_INFINITY,
): Promise<string[]> {
  const turn = (queueTurns.get(queueUrl) ?? Promise.resolve()).then(() =>
    scan(sqs, target, queueUrl, matches, rounds),
  );
  queueTurns.set(
    queueUrl,
    turn.catch(() => undefined),
  );
  return turn;
}

/** SQS's longest visibility timeout (12 hours). */
const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;
/** The last scan of each queue from this process: the next one starts after it. */
const queueTurns = new Map<string, Promise<unknown>>();

async function scan(
  sqs: SQSClient,
  target: TargetDescription,
  queueUrl: string,
  matches: (body: string) => boolean,
  rounds: number,
): Promise<string[]> {
  const taken: string[] = [];
  const others: string[] = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: target.kind === 'local' ? 0 : 1,
          VisibilityTimeout: MAX_VISIBILITY_TIMEOUT_SECONDS,
        }),
      );
      if (!Messages || Messages.length === 0) break;
      for (const message of Messages) {
        const body = message.Body ?? '';
        let ours = false;
        try {
          ours = matches(body);
        } catch {
          ours = false;
        }
        if (ours) {
          taken.push(body);
          await sqs.send(
            new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
          );
        } else if (message.ReceiptHandle) {
          others.push(message.ReceiptHandle);
        }
      }
    }
  } finally {
    await Promise.all(
      others.map((handle) =>
        sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: queueUrl,
            ReceiptHandle: handle,
            VisibilityTimeout: 0,
          }),
        ),
      ),
    );
  }
  return taken;
}
