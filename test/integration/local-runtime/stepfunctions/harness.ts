/**
 * Shared set-up of the SFN integration tests: real DynamoDB Local + the SQS service, the local Step
 * Functions runtime wired to them, and a real @aws-sdk/client-sfn client pointed at it.
 */
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  SFNClient,
} from '@aws-sdk/client-sfn';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  type LocalSfnEvent,
  type LocalStepFunctions,
  type LocalStepFunctionsOptions,
  startLocalStepFunctions,
} from '../../../../lib/local-runtime/stepfunctions';
import {
  dynamoClient,
  type RunningEmulator,
  sqsClient,
  startDynamoDbLocal,
  startLocalSqs,
  TEST_CREDENTIALS,
  TEST_REGION,
} from '../../../support/emulators';

export interface SfnHarness {
  readonly sfn: LocalStepFunctions;
  readonly client: SFNClient;
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly events: LocalSfnEvent[];
  stop(): Promise<void>;
}

export async function startSfnHarness(
  extra: Pick<LocalStepFunctionsOptions, 'putEvents' | 'invokeLambda' | 'clock'> = {},
): Promise<SfnHarness> {
  const [dynamoEmulator, sqsEmulator]: RunningEmulator[] = await Promise.all([
    startDynamoDbLocal(),
    startLocalSqs(),
  ]);
  const dynamodb = dynamoClient(dynamoEmulator?.endpoint ?? '');
  const sqs = sqsClient(sqsEmulator?.endpoint ?? '');
  const sfn = await startLocalStepFunctions({ dynamodb, sqs, ...extra });
  const events: LocalSfnEvent[] = [];
  sfn.events.on('event', (event: LocalSfnEvent) => events.push(event));
  const client = new SFNClient({
    endpoint: sfn.endpoint,
    region: TEST_REGION,
    credentials: TEST_CREDENTIALS,
    // A test asserting an API error must see the first answer, not a retried one.
    maxAttempts: 1,
  });
  return {
    sfn,
    client,
    dynamodb,
    sqs,
    events,
    stop: async () => {
      client.destroy();
      await sfn.stop();
      await Promise.all([dynamoEmulator?.stop(), sqsEmulator?.stop()]);
    },
  };
}

let machineCounter = 0;

/** Registers a definition under a fresh name and returns its ARN. */
export function register(sfn: LocalStepFunctions, definition: object, prefix = 'machine'): string {
  machineCounter += 1;
  const name = `${prefix}-${machineCounter}`;
  const arn = sfn.stateMachineArnFor(name);
  sfn.registerStateMachine(arn, name, JSON.stringify(definition));
  return arn;
}

export async function createTable(
  dynamodb: DynamoDBClient,
  tableName: string,
  key = 'OrderID',
): Promise<void> {
  await dynamodb.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
    }),
  );
}

export async function createQueue(sqs: SQSClient, queueName: string): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queueName }));
  if (!QueueUrl) throw new Error(`CreateQueue ${queueName} returned no URL`);
  return QueueUrl;
}

/** Receives (and deletes) one message, waiting up to `timeoutMs`. */
export async function receiveOne(
  sqs: SQSClient,
  queueUrl: string,
  timeoutMs = 5_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const got = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 1 }),
    );
    const message = got.Messages?.[0];
    if (message?.Body !== undefined) {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
      return JSON.parse(message.Body) as Record<string, unknown>;
    }
  }
  throw new Error(`No message on ${queueUrl} within ${timeoutMs} ms`);
}

/** Polls DescribeExecution until the execution leaves RUNNING (or `timeoutMs` passes). */
export async function waitForEnd(
  client: SFNClient,
  executionArn: string,
  timeoutMs = 10_000,
): Promise<DescribeExecutionCommandOutput> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const described = await client.send(new DescribeExecutionCommand({ executionArn }));
    if (described.status !== 'RUNNING') return described;
    if (Date.now() > deadline)
      throw new Error(`Execution ${executionArn} still RUNNING after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
