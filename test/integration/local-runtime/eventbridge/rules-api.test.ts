/**
 * EventBridge rule management on the local runtime's EventBridge endpoint: a consumer the templates
 * do not know subscribes its own FIFO queue to a bus at run time with the real EventBridgeClient (and
 * the AWS CLI), receives matching events in its message group, and unsubscribes; DisableRule and
 * EnableRule pause and resume a rule, a schedule rule's timer included.
 */
import {
  DeleteRuleCommand,
  DescribeRuleCommand,
  DisableRuleCommand,
  EnableRuleCommand,
  EventBridgeClient,
  ListRulesCommand,
  ListTargetsByRuleCommand,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { serviceSendPolicy } from '../../../../lambdas/shared/service-send-policy';
import { LocalEventBridge } from '../../../../lib/local-runtime/eventbridge/event-buses';
import { eventBridgeRuleOperations } from '../../../../lib/local-runtime/eventbridge/rules-api';
import { startAwsJsonServer } from '../../../../lib/local-runtime/protocol/aws-json-server';
import type { RunningServer } from '../../../../lib/local-runtime/protocol/http-server';
import { type MessagingRuntime, startMessagingRuntime } from '../messaging-runtime';

jest.setTimeout(120_000);

/** A local user no policy allows anything. */
const NO_POLICY_USER = 'no-policy';

describe('EventBridge rule management of the local runtime', () => {
  let world: MessagingRuntime;
  let events: EventBridgeClient;
  let bus: string;

  beforeAll(async () => {
    world = await startMessagingRuntime({ users: { [NO_POLICY_USER]: {} } });
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
    // The bus may deliver only to a queue whose policy lets EventBridge send, as on AWS.
    await world.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl,
        Attributes: {
          Policy: serviceSendPolicy(Attributes.QueueArn ?? '', 'events.amazonaws.com'),
        },
      }),
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

  it("keeps an entry's Time in the event (the SDK sends a Date as epoch seconds)", async () => {
    const { queueUrl, queueArn } = await fifoQueue('timed-consumer.fifo');
    await events.send(
      new PutRuleCommand({
        Name: 'timed',
        EventBusName: bus,
        EventPattern: JSON.stringify({ 'detail-type': ['Timed'] }),
      }),
    );
    await events.send(
      new PutTargetsCommand({
        Rule: 'timed',
        EventBusName: bus,
        Targets: [{ Id: 'q', Arn: queueArn, SqsParameters: { MessageGroupId: 't' } }],
      }),
    );
    const { FailedEntryCount } = await events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: bus,
            Source: 'drones',
            DetailType: 'Timed',
            Detail: '{}',
            Time: new Date('2026-01-02T03:04:05.678Z'),
          },
        ],
      }),
    );
    expect(FailedEntryCount).toBe(0);
    let received: string[] = [];
    for (let attempt = 0; attempt < 50 && received.length === 0; attempt += 1) {
      received = (await world.drain(queueUrl)).map(({ Body }) => Body ?? '');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(JSON.parse(received[0] ?? '{}')).toMatchObject({ time: '2026-01-02T03:04:05Z' });
  });

  it('DisableRule stops a rule matching events, EnableRule resumes it; unknown rules are named', async () => {
    const { queueUrl, queueArn } = await fifoQueue('pausable-consumer.fifo');
    await events.send(
      new PutRuleCommand({
        Name: 'pausable',
        EventBusName: bus,
        EventPattern: JSON.stringify({ 'detail-type': ['Pausable'] }),
      }),
    );
    await events.send(
      new PutTargetsCommand({
        Rule: 'pausable',
        EventBusName: bus,
        Targets: [{ Id: 'q', Arn: queueArn, InputPath: '$.detail', SqsParameters: { MessageGroupId: 'p' } }],
      }),
    );
    const state = async () =>
      (await events.send(new DescribeRuleCommand({ Name: 'pausable', EventBusName: bus }))).State;
    const receiveOne = async (): Promise<string[]> => {
      let received: string[] = [];
      for (let attempt = 0; attempt < 50 && received.length === 0; attempt += 1) {
        received = (await world.drain(queueUrl)).map(({ Body }) => Body ?? '');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received;
    };

    await events.send(new DisableRuleCommand({ Name: 'pausable', EventBusName: bus }));
    expect(await state()).toBe('DISABLED');
    await putEvent('Pausable', { n: 1 });
    // What a disabled rule matches is dropped, not held: nothing arrives, even after the enable.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await world.drain(queueUrl)).toEqual([]);

    await events.send(new EnableRuleCommand({ Name: 'pausable', EventBusName: bus }));
    expect(await state()).toBe('ENABLED');
    // The targets survive the pause.
    const { Targets = [] } = await events.send(
      new ListTargetsByRuleCommand({ Rule: 'pausable', EventBusName: bus }),
    );
    expect(Targets.map(({ Id }) => Id)).toEqual(['q']);
    await putEvent('Pausable', { n: 2 });
    expect(await receiveOne()).toEqual(['{"n":2}']);

    for (const command of [
      new DisableRuleCommand({ Name: 'no-such-rule', EventBusName: bus }),
      new EnableRuleCommand({ Name: 'no-such-rule', EventBusName: bus }),
    ]) {
      await expect(events.send(command as DisableRuleCommand)).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
        message: `Rule no-such-rule does not exist on EventBus ${bus}.`,
      });
    }
  });

  it('refuses what IAM refuses: an unknown key, and an identity no policy allows (nothing is put)', async () => {
    const as = (credentials: { accessKeyId: string; secretAccessKey: string }) =>
      new EventBridgeClient({
        ...world.clientConfig,
        credentials,
        endpoint: world.runtime.target.endpoints.events,
        maxAttempts: 1,
      });
    const entries = [{ EventBusName: bus, Source: 'drones', DetailType: 'Refused', Detail: '{}' }];
    const stranger = as({ accessKeyId: 'nobody', secretAccessKey: 'guess' });
    await expect(stranger.send(new PutEventsCommand({ Entries: entries }))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
    });
    stranger.destroy();
    const user = world.runtime.target.identities?.[NO_POLICY_USER];
    if (!user) throw new Error(`the target lists no ${NO_POLICY_USER}`);
    const unprivileged = as(user);
    const refusal = unprivileged.send(new PutEventsCommand({ Entries: entries }));
    await expect(refusal).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining(
        `User: ${user.userArn} is not authorized to perform: events:PutEvents on resource: arn:aws:events:`,
      ),
    });
    await expect(unprivileged.send(new ListRulesCommand({ EventBusName: bus }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    unprivileged.destroy();
  });
});

/**
 * A schedule rule's timer on the runtime's EventBridge (LocalEventBridge behind its AWS JSON
 * server, as the runtime serves it), driven by the real EventBridgeClient. Templates can only ask
 * for rates of a minute or more, so the rule here is added with a short rate directly: the timer,
 * the rule lookup on each tick and the API are the runtime's own.
 */
describe('DisableRule / EnableRule on a schedule rule', () => {
  const RATE_MILLIS = 100;
  const fired: string[] = [];
  let bridge: LocalEventBridge;
  let server: RunningServer;
  let events: EventBridgeClient;

  beforeAll(async () => {
    bridge = new LocalEventBridge({
      region: 'us-east-1',
      accountId: '000000000000',
      deliver: async (target) => {
        fired.push(target.id);
      },
      onProblem: (message) => {
        throw new Error(message);
      },
    });
    bridge.addRule({
      logicalId: 'Ticker',
      name: 'ticker',
      arn: 'arn:aws:events:us-east-1:000000000000:rule/ticker',
      busName: 'default',
      rateMillis: RATE_MILLIS,
      targets: [{ id: 'tick', arn: 'arn:aws:lambda:us-east-1:000000000000:function:ticker' }],
    });
    server = await startAwsJsonServer(
      'EventBridge',
      eventBridgeRuleOperations(bridge, {
        region: 'us-east-1',
        accountId: '000000000000',
        canDeliver: () => true,
        onProblem: () => undefined,
      }),
    );
    events = new EventBridgeClient({
      region: 'us-east-1',
      endpoint: server.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    bridge.startSchedules();
  });

  afterAll(async () => {
    events?.destroy();
    await bridge?.stop();
    await server?.stop();
  });

  /** Resolves once the schedule has fired more than `count` times in all. */
  async function firedMoreThan(count: number): Promise<void> {
    for (let attempt = 0; attempt < 100 && fired.length <= count; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, RATE_MILLIS / 2));
    }
    expect(fired.length).toBeGreaterThan(count);
  }

  it('a disabled rate rule stops firing and, enabled again, resumes at its rate', async () => {
    // Fired at start, then at its rate.
    await firedMoreThan(1);

    await events.send(new DisableRuleCommand({ Name: 'ticker' }));
    expect((await events.send(new DescribeRuleCommand({ Name: 'ticker' }))).State).toBe('DISABLED');
    // A tick delivers synchronously: nothing fires once DisableRule has answered.
    const whenDisabled = fired.length;
    await new Promise((resolve) => setTimeout(resolve, RATE_MILLIS * 5));
    expect(fired.length).toBe(whenDisabled);

    await events.send(new EnableRuleCommand({ Name: 'ticker' }));
    expect((await events.send(new DescribeRuleCommand({ Name: 'ticker' }))).State).toBe('ENABLED');
    await firedMoreThan(whenDisabled + 1);
  });
});
