/**
 * The acceptance client reads a queue that operators share (the alert inbox on AWS): it must take
 * only the messages of the orders it asks about and leave every other message where it was.
 */
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { SystemClient } from '../../acceptance/scheduler-agent-supervisor/system-client';
import { parseTargetDescription } from '../../acceptance/target';
import { localSqsIam, type RunningEmulator, startLocalSqs } from '../../support/emulators';
import { TEST_REGION, TEST_ROOT } from '../../support/local-iam';

describe('acceptance SystemClient on a shared queue', () => {
  let sqs: RunningEmulator;
  beforeAll(async () => {
    // A local target's clients sign as the runtime's root (local/local), as the SystemClient does.
    sqs = await startLocalSqs({ iam: localSqsIam(TEST_ROOT) });
  });
  afterAll(() => sqs.stop());

  /**
   * A new queue holding `bodies` (sent in order), a SystemClient whose alert inbox it is, and the
   * bodies the client left on it.
   */
  async function sharedInbox(queueName: string, bodies: readonly string[]) {
    const client = new SQSClient({ endpoint: sqs.endpoint, region: TEST_REGION, credentials: TEST_ROOT });
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: queueName }));
    for (const body of bodies) {
      await client.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
    }
    const system = new SystemClient(
      parseTargetDescription(
        {
          kind: 'local',
          endpoints: { sqs: sqs.endpoint, dynamodb: 'http://127.0.0.1:1' },
          outputs: {
            ApiUrl: 'http://127.0.0.1:1',
            StateTableName: 's',
            OrdersTableName: 'o',
            LedgerTableName: 'l',
            AlertInboxQueueUrl: String(QueueUrl),
            ConflictQueueUrl: String(QueueUrl),
          },
        },
        { kind: 'local' },
      ),
    );
    const leftBodies = async () => {
      const left = await client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      return (left.Messages ?? []).map((m) => m.Body);
    };
    return { system, leftBodies };
  }

  it("takes this order's alerts and puts every other message back", async () => {
    const alert = (orderId: string) =>
      JSON.stringify({ 'detail-type': 'OrderFailed', detail: { orderId, reason: 'AgentPermanentFailure' } });
    const { system, leftBodies } = await sharedInbox('inbox', [
      alert('theirs-1'),
      alert('ours'),
      'not json',
      alert('theirs-2'),
    ]);
    try {
      const alerts = await system.alertsFor('ours');
      expect(alerts).toEqual([
        { detailType: 'OrderFailed', detail: { orderId: 'ours', reason: 'AgentPermanentFailure' } },
      ]);
      // Read again: the alert is remembered, not lost, and not duplicated.
      expect(await system.alertsFor('ours')).toHaveLength(1);
      expect((await leftBodies()).sort()).toEqual([alert('theirs-1'), alert('theirs-2'), 'not json'].sort());
    } finally {
      system.close();
    }
  });
  it('counts copies of one alertId once (the outbox delivers at least once) and leaves alarm notifications', async () => {
    const copy = JSON.stringify({
      'detail-type': 'CompensationFailed',
      detail: { orderId: 'ours', alertId: 'ours:CompensationFailed:1' },
    });
    const notification = JSON.stringify({ AlarmName: 'App-CompensationsFailed', NewStateValue: 'ALARM' });
    const { system, leftBodies } = await sharedInbox('inbox-copies', [copy, notification, copy]);
    try {
      expect(await system.alertsFor('ours')).toEqual([
        {
          detailType: 'CompensationFailed',
          detail: { orderId: 'ours', alertId: 'ours:CompensationFailed:1' },
        },
      ]);
      expect(await leftBodies()).toEqual([notification]);
    } finally {
      system.close();
    }
  });
});
