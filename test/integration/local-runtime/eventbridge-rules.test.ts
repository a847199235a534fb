/**
 * EventBridge rule management on the local runtime's EventBridge endpoint: a consumer the templates
 * do not know subscribes its own FIFO queue to a bus at run time with the real EventBridgeClient (and
 * the AWS CLI), receives matching events in its message group, and unsubscribes.
 */
import {
  DeleteRuleCommand,
  DescribeRuleCommand,
  EventBridgeClient,
  ListRulesCommand,
  ListTargetsByRuleCommand,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, GetQueueAttributesCommand, type Message } from '@aws-sdk/client-sqs';
import { type MessagingRuntime, startMessagingRuntime } from './messaging-runtime';

jest.setTimeout(120_000);

describe('EventBridge rule management of the local runtime', () => {
  let world: MessagingRuntime;
  let events: EventBridgeClient;
  let bus: string;

  beforeAll(async () => {
    world = await startMessagingRuntime();
    events = new EventBridgeClient({
      ...world.clientConfig,
      endpoint: world.runtime.target.endpoints.events,
    });
    bus = world.outputs.BusName ?? '';
  });

  afterAll(async () => {
    events?.destroy();
    await world?.stop();
  });

  async function fifoQueue(name: string): Promise<{ queueUrl: string; queueArn: string }> {
    const { QueueUrl = '' } = await world.sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        // EventBridge sends no deduplication id: the queue must deduplicate by content, as on AWS.
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    );
    const { Attributes = {} } = await world.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    return { queueUrl: QueueUrl, queueArn: Attributes.QueueArn ?? '' };
  }

  const putEvent = (detailType: string, detail: object) =>
    events.send(
      new PutEventsCommand({
        Entries: [
          { EventBusName: bus, Source: 'drones', DetailType: detailType, Detail: JSON.stringify(detail) },
        ],
      }),
    );

  it('routes matching events to a queue subscribed at run time, in its message group, until the target is removed', async () => {
    const { queueUrl, queueArn } = await fifoQueue('drone-consumer.fifo');
    const { RuleArn } = await events.send(
      new PutRuleCommand({
        Name: 'drone-dispatched',
        EventBusName: bus,
        EventPattern: JSON.stringify({ 'detail-type': ['DroneDispatched'] }),
      }),
    );
    expect(RuleArn).toBe(`arn:aws:events:us-east-1:000000000000:rule/${bus}/drone-dispatched`);
    await expect(
      events.send(
        new PutTargetsCommand({
          Rule: 'drone-dispatched',
          EventBusName: bus,
          Targets: [{ Id: 'q', Arn: queueArn }],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/SqsParameters/) });
    const { FailedEntryCount } = await events.send(
      new PutTargetsCommand({
        Rule: 'drone-dispatched',
        EventBusName: bus,
        Targets: [
          { Id: 'q', Arn: queueArn, InputPath: '$.detail', SqsParameters: { MessageGroupId: 'drones' } },
        ],
      }),
    );
    expect(FailedEntryCount).toBe(0);

    await putEvent('DroneDispatched', { drone: 1 });
    await putEvent('DroneLanded', { drone: 1 });
    await putEvent('DroneDispatched', { drone: 2 });
    let received: Message[] = [];
    for (let attempt = 0; attempt < 50 && received.length < 2; attempt += 1) {
      received = received.concat(await world.drain(queueUrl));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(received.map(({ Body }) => Body)).toEqual(['{"drone":1}', '{"drone":2}']);
    expect(received.map(({ Attributes }) => Attributes?.MessageGroupId)).toEqual(['drones', 'drones']);

    const { Targets } = await events.send(
      new ListTargetsByRuleCommand({ Rule: 'drone-dispatched', EventBusName: bus }),
    );
    expect(Targets).toEqual([
      { Id: 'q', Arn: queueArn, InputPath: '$.detail', SqsParameters: { MessageGroupId: 'drones' } },
    ]);
    await expect(
      events.send(new DeleteRuleCommand({ Name: 'drone-dispatched', EventBusName: bus })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await events.send(new RemoveTargetsCommand({ Rule: 'drone-dispatched', EventBusName: bus, Ids: ['q'] }));
    await putEvent('DroneDispatched', { drone: 3 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await world.drain(queueUrl)).toEqual([]);
    await events.send(new DeleteRuleCommand({ Name: 'drone-dispatched', EventBusName: bus }));
    await expect(
      events.send(new DescribeRuleCommand({ Name: 'drone-dispatched', EventBusName: bus })),
    ).rejects.toThrow(ResourceNotFoundException);
  });

  it('describes and lists rules, disabled ones included, and names unknown buses', async () => {
    await events.send(
      new PutRuleCommand({
        Name: 'paused',
        EventBusName: bus,
        State: 'DISABLED',
        EventPattern: JSON.stringify({ source: ['drones'] }),
      }),
    );
    expect(await events.send(new DescribeRuleCommand({ Name: 'paused', EventBusName: bus }))).toMatchObject({
      Name: 'paused',
      State: 'DISABLED',
      EventBusName: bus,
      EventPattern: '{"source":["drones"]}',
    });
    const { Rules = [] } = await events.send(new ListRulesCommand({ EventBusName: bus, NamePrefix: 'pa' }));
    expect(Rules.map(({ Name }) => Name)).toEqual(['paused']);
    await expect(events.send(new ListRulesCommand({ EventBusName: 'nope' }))).rejects.toThrow(
      ResourceNotFoundException,
    );
    await expect(
      events.send(new PutRuleCommand({ Name: 'bad', EventBusName: bus, EventPattern: '[1]' })),
    ).rejects.toMatchObject({ name: 'InvalidEventPatternException' });
  });

  it('answers the AWS CLI (aws events put-rule / put-targets --endpoint-url ...)', async () => {
    const { queueUrl, queueArn } = await fifoQueue('cli-consumer.fifo');
    const cli = (...args: string[]) => world.awsCli('events', ...args);
    await cli(
      'put-rule',
      '--name',
      'cli-rule',
      '--event-bus-name',
      bus,
      '--event-pattern',
      '{"source":["drones"]}',
    );
    await cli(
      'put-targets',
      '--rule',
      'cli-rule',
      '--event-bus-name',
      bus,
      '--targets',
      JSON.stringify([{ Id: 'cli', Arn: queueArn, SqsParameters: { MessageGroupId: 'cli' } }]),
    );
    await putEvent('Anything', { via: 'cli' });
    let received: string[] = [];
    for (let attempt = 0; attempt < 50 && received.length === 0; attempt += 1) {
      received = (await world.drain(queueUrl)).map(({ Body }) => Body ?? '');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(JSON.parse(received[0] ?? '{}')).toMatchObject({ source: 'drones', detail: { via: 'cli' } });
  });
});
