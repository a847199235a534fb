/**
 * The acceptance client reads a queue that operators share (the alert inbox on AWS): it must take
 * only the messages of the orders it asks about and leave every other message where it was.
 */
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { SystemClient } from '../../acceptance/scheduler-agent-supervisor/system-client';
import { parseTargetDescription } from '../../acceptance/target';
import { type RunningEmulator, sqsClient, startLocalSqs } from '../../support/emulators';

describe('acceptance SystemClient on a shared queue', () => {
  let sqs: RunningEmulator;
  beforeAll(async () => {
    sqs = await startLocalSqs();
  });
  afterAll(() => sqs.stop());

  it("takes this order's alerts and puts every other message back", async () => {
    const client = sqsClient(sqs.endpoint);
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'inbox' }));
    const alert = (orderId: string) =>
      JSON.stringify({ 'detail-type': 'OrderFailed', detail: { orderId, reason: 'AgentPermanentFailure' } });
    for (const body of [alert('theirs-1'), alert('ours'), 'not json', alert('theirs-2')]) {
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
    try {
      const alerts = await system.alertsFor('ours');
      expect(alerts).toEqual([
        { detailType: 'OrderFailed', detail: { orderId: 'ours', reason: 'AgentPermanentFailure' } },
      ]);
      // Read again: the alert is remembered, not lost, and not duplicated.
      expect(await system.alertsFor('ours')).toHaveLength(1);
      const left = await client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      expect((left.Messages ?? []).map((m) => m.Body).sort()).toEqual(
        [alert('theirs-1'), alert('theirs-2'), 'not json'].sort(),
      );
    } finally {
      system.close();
    }
  });
  it('counts copies of one alertId once (the outbox delivers at least once) and leaves alarm notifications', async () => {
    const client = sqsClient(sqs.endpoint);
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'inbox-copies' }));
    const copy = JSON.stringify({
      'detail-type': 'CompensationFailed',
      detail: { orderId: 'ours', alertId: 'ours:CompensationFailed:1' },
    });
    const notification = JSON.stringify({ AlarmName: 'App-CompensationsFailed', NewStateValue: 'ALARM' });
    for (const body of [copy, notification, copy]) {
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
    try {
      expect(await system.alertsFor('ours')).toEqual([
        {
          detailType: 'CompensationFailed',
          detail: { orderId: 'ours', alertId: 'ours:CompensationFailed:1' },
        },
      ]);
      const left = await client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      expect((left.Messages ?? []).map((m) => m.Body)).toEqual([notification]);
    } finally {
      system.close();
    }
  });
});
