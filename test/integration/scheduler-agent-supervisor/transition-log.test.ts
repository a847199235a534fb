/** The order transition log of `npm start`, as a local runtime observer, against a real table. */
import { CreateTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { LocalTarget } from '../../../lib/local-runtime';
import { orderTransitionLog } from '../../../lib/scheduler-agent-supervisor/local/transition-log';
import { StackOutput } from '../../../lib/scheduler-agent-supervisor/stack';
import {
  dynamoClient,
  type RunningEmulator,
  startDynamoDbLocal,
  TEST_CREDENTIALS,
  TEST_REGION,
} from '../../support/emulators';

describe('order transition log observer', () => {
  let dynamo: RunningEmulator;
  beforeAll(async () => {
    dynamo = await startDynamoDbLocal();
  });
  afterAll(() => dynamo.stop());

  const runtimeView = (outputs: Record<string, string>, lines: string[]) => ({
    target: { endpoints: { dynamodb: dynamo.endpoint }, outputs } as unknown as LocalTarget,
    sdkConfig: () => ({
      region: TEST_REGION,
      endpoint: dynamo.endpoint,
      credentials: { ...TEST_CREDENTIALS },
    }),
    log: (line: string) => lines.push(line),
  });

  it('logs each transition of the table named by the StateTableName output until stopped', async () => {
    const client = dynamoClient(dynamo.endpoint);
    await client.send(
      new CreateTableCommand({
        TableName: 'states',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'OrderID', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'OrderID', KeyType: 'HASH' }],
      }),
    );
    const put = (state: string, attempt: number) =>
      client.send(
        new PutItemCommand({
          TableName: 'states',
          Item: {
            OrderID: { S: 'o-1' },
            ProcessState: { S: state },
            Attempt: { N: String(attempt) },
            FailureCount: { N: '0' },
          },
        }),
      );
    await put('Pending', 0);
    const lines: string[] = [];
    const running = await orderTransitionLog().start(
      runtimeView({ [StackOutput.StateTableName]: 'states' }, lines),
    );
    try {
      const seen = async (line: string) => {
        const deadline = Date.now() + 5_000;
        while (!lines.includes(line) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        return lines.includes(line);
      };
      expect(await seen('order o-1 Pending (attempt 0)')).toBe(true);
      await put('Processed', 1);
      expect(await seen('order o-1 Processed (attempt 1)')).toBe(true);
    } finally {
      await running.stop();
      client.destroy();
    }
  });

  it('says so and does nothing when the assembly has no StateTableName output', async () => {
    const lines: string[] = [];
    const running = await orderTransitionLog().start(runtimeView({}, lines));
    await running.stop();
    expect(lines).toEqual([
      'transition log: no StateTableName output in this assembly; order transitions are not logged',
    ]);
  });
});
