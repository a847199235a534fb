/**
 * EventBridge's PutEvents quotas as the runtime enforces them (lib/local-runtime/eventbridge/limits.ts),
 * one test per quota, each naming the AWS page that states it: the real EventBridgeClient against
 * the runtime's PutEvents on its AWS JSON protocol server, on a bus with no rules.
 */
import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequest,
  type PutEventsRequestEntry,
  type PutEventsResponse,
} from '@aws-sdk/client-eventbridge';
import { LocalEventBridge } from '../../../../lib/local-runtime/eventbridge/event-buses';
import { startAwsJsonServer, typedOperation } from '../../../../lib/local-runtime/protocol/aws-json-server';
import type { RunningServer } from '../../../../lib/local-runtime/protocol/http-server';
import { TEST_CREDENTIALS, TEST_REGION } from '../../../support/emulators';

const MIB = 1_048_576;

describe('EventBridge PutEvents: AWS quotas', () => {
  let server: RunningServer;
  let events: EventBridgeClient;

  beforeAll(async () => {
    const bus = new LocalEventBridge({
      region: TEST_REGION,
      accountId: '000000000000',
      deliver: async () => undefined,
      onProblem: (message) => {
        throw new Error(message);
      },
    });
    server = await startAwsJsonServer('EventBridge', {
      PutEvents: typedOperation<PutEventsRequest, PutEventsResponse>((body) =>
        bus.putEvents((body.Entries ?? []) as Record<string, unknown>[]),
      ),
    });
    events = new EventBridgeClient({
      endpoint: server.endpoint,
      region: TEST_REGION,
      credentials: TEST_CREDENTIALS,
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    events.destroy();
    await server.stop();
  });

  /** An entry of exactly `bytes` as EventBridge counts them (Source + DetailType + Detail). */
  const entryOf = (bytes: number): PutEventsRequestEntry => {
    const Source = 'test.limits';
    const DetailType = 'Sized';
    const frame = Source.length + DetailType.length + '{"pad":""}'.length;
    return { Source, DetailType, Detail: JSON.stringify({ pad: 'x'.repeat(bytes - frame) }) };
  };

  // https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html ("the total entry
  // size must be less than 1MB"; entry size as https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html)
  it('takes entries of 1 MiB in total and refuses a request one byte over with ValidationException', async () => {
    const within = await events.send(new PutEventsCommand({ Entries: [entryOf(MIB / 2), entryOf(MIB / 2)] }));
    expect(within.FailedEntryCount).toBe(0);
    await expect(
      events.send(new PutEventsCommand({ Entries: [entryOf(MIB / 2), entryOf(MIB / 2 + 1)] })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Total size of the entries in the request is over the limit.',
    });
  });

  // https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html (Entries:
  // "Maximum number of 10 items")
  it('refuses an eleventh entry with ValidationException', async () => {
    const entries = (count: number) => Array.from({ length: count }, () => entryOf(100));
    expect((await events.send(new PutEventsCommand({ Entries: entries(10) }))).Entries).toHaveLength(10);
    await expect(events.send(new PutEventsCommand({ Entries: entries(11) }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('Member must have length less than or equal to 10'),
    });
  });
});
