/**
 * The outbox publisher's clients: one per kind of destination the function has a variable for, and
 * the other kinds' SDK client modules never loaded; the publisher without the client an entry needs. (Publishing through them, to the runtime's SNS,
 * SQS and EventBridge, is test/integration/choreography/outbox-relay.test.ts.)
 */

import type * as OutboxClients from '../../../../lambdas/choreography/adapters/outbox-clients';
import { AwsOutboxPublisher } from '../../../../lambdas/choreography/adapters/outbox-publisher';
import { DESTINATION_ENV_KEY, OutboxDestination } from '../../../../lambdas/choreography/contracts';

const tracer = { captureAWSv3Client: <T>(client: T): T => client };
const FACTORIES = {
  sns: '../../../../lambdas/shared/aws-clients/sns',
  sqs: '../../../../lambdas/shared/aws-clients/sqs',
  eventBridge: '../../../../lambdas/shared/aws-clients/eventbridge',
} as const;

afterEach(() => {
  for (const path of Object.values(FACTORIES)) jest.dontMock(path);
});

/** The module, loaded fresh, where requiring the factory of any kind but `allowed` fails loudly. */
function loadAllowing(allowed: readonly (keyof typeof FACTORIES)[]): typeof OutboxClients {
  let loaded: typeof OutboxClients | undefined;
  jest.isolateModules(() => {
    for (const [kind, path] of Object.entries(FACTORIES)) {
      if (!allowed.includes(kind as keyof typeof FACTORIES)) {
        jest.doMock(path, () => {
          throw new Error(`the ${kind} client module was loaded`);
        });
      }
    }
    loaded = require('../../../../lambdas/choreography/adapters/outbox-clients');
  });
  if (!loaded) throw new Error('outbox-clients did not load');
  return loaded;
}

const env = (...destinations: OutboxDestination[]): NodeJS.ProcessEnv =>
  Object.fromEntries(
    destinations.map((destination) => [DESTINATION_ENV_KEY[destination], `${destination}-name`]),
  );

describe('createPublisherClients', () => {
  it.each([
    ['a relay to the requests topic', [OutboxDestination.RequestsTopic], ['sns']],
    ['a relay to the delivery queue (and the drone fleet)', [OutboxDestination.DeliveryQueue], ['sqs']],
    ['a relay to the delivery bus', [OutboxDestination.DeliveryBus], ['eventBridge']],
    [
      'the remediation relay (the topic and the alert bus)',
      [OutboxDestination.RequestsTopic, OutboxDestination.AlertBus],
      ['eventBridge', 'sns'],
    ],
  ] as const)('makes only the clients of its destinations: %s', (_name, destinations, kinds) => {
    const { createPublisherClients } = loadAllowing(kinds);
    const clients = createPublisherClients(tracer, { AWS_REGION: 'us-east-1', ...env(...destinations) });
    expect(Object.keys(clients).sort()).toEqual([...kinds].sort());
  });

  it('makes every client where every destination is named, and none where none is', () => {
    const { createPublisherClients } = loadAllowing(['sns', 'sqs', 'eventBridge']);
    const all = env(...Object.values(OutboxDestination));
    expect(Object.keys(createPublisherClients(tracer, { AWS_REGION: 'us-east-1', ...all })).sort()).toEqual([
      'eventBridge',
      'sns',
      'sqs',
    ]);
    expect(createPublisherClients(tracer, {})).toEqual({});
  });
});

describe('AwsOutboxPublisher without the client of an entry', () => {
  it('names the entry, its destination and the missing client, and sends nothing', async () => {
    const sqs = { send: jest.fn() };
    const publisher = new AwsOutboxPublisher(
      { sqs } as never,
      env(OutboxDestination.RequestsTopic, OutboxDestination.DeliveryQueue),
    );
    const entry = {
      id: 'delivery:d1:1',
      destination: OutboxDestination.RequestsTopic,
      message: { type: 'DeliveryRequested', deliveryId: 'd1', eventId: 'e1' },
    } as never;
    await expect(publisher.publish(entry)).rejects.toThrow(
      'Outbox entry delivery:d1:1 goes to requests-topic, but this publisher has no sns client',
    );
    expect(sqs.send).not.toHaveBeenCalled();
  });
});
