/**
 * The SQS event source (Lambda's poller) on queues of the runtime's SQS service: ScalingConfig's
 * MaximumConcurrency; on FIFO queues batches of at most 10, one batch per message group at a time,
 * and partial batch failures that keep each message group in order, with a handler built on
 * Powertools' SqsFifoPartialProcessor and with one that reports only the message that failed.
 */
import { processPartialResponseSync, SqsFifoPartialProcessor } from '@aws-lambda-powertools/batch';
import { GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { InvocationResult } from '../../../../lib/local-runtime/lambda/host';
import { SqsEventSource } from '../../../../lib/local-runtime/lambda/sqs-event-source';
import { type SqsWorld, sleep, startSqsWorld } from '../sqs/harness';

type Handler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

describe('SQS event source', () => {
  let world: SqsWorld;
  beforeAll(async () => {
    world = await startSqsWorld();
  });
  afterAll(() => world.stop());

  /**
   * Sends the bodies in order, in batches of 10; on a FIFO queue each in its group (the body's first
   * letter).
   */
  async function queueWith(
    bodies: readonly string[],
    fifo: boolean,
  ): Promise<{ queueUrl: string; queueArn: string }> {
    const queueUrl = await world.queue(fifo ? 'poller.fifo' : 'poller', { VisibilityTimeout: '1' });
    for (let start = 0; start < bodies.length; start += 10) {
      await world.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: bodies.slice(start, start + 10).map((body) => ({
            Id: body,
            MessageBody: body,
            ...(fifo ? { MessageGroupId: body.slice(0, 1), MessageDeduplicationId: body } : {}),
          })),
        }),
      );
    }
    const { Attributes } = await world.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    );
    return { queueUrl, queueArn: Attributes?.QueueArn ?? '' };
  }

  /** Runs an event source on the queue until it is empty; returns what it saw. */
  async function drain(
    bodies: readonly string[],
    handler: Handler,
    { batchSize = 10, concurrency = 2, fifo = true } = {},
  ) {
    const { queueUrl, queueArn } = await queueWith(bodies, fifo);
    const batches: string[][] = [];
    const problems: string[] = [];
    const source = new SqsEventSource(
      {
        logicalId: 'FifoMapping',
        queueUrl,
        queueArn,
        functionReference: 'consumer',
        batchSize,
        maximumBatchingWindowSeconds: 0,
        reportBatchItemFailures: true,
        concurrency,
        region: 'us-east-1',
      },
      {
        sqs: world.sqs,
        onProblem: (message) => problems.push(message),
        invoke: async (_reference, event): Promise<InvocationResult> => {
          const records = (event as SQSEvent).Records;
          batches.push(records.map((record) => record.body));
          try {
            return { ok: true, payload: await handler(event as SQSEvent), requestId: 'r' };
          } catch (error) {
            return {
              ok: false,
              error: { errorType: 'Error', errorMessage: (error as Error).message },
              requestId: 'r',
            };
          }
        },
      },
    );
    source.start();
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const { Attributes = {} } = await world.sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: queueUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        if (
          Attributes.ApproximateNumberOfMessages === '0' &&
          Attributes.ApproximateNumberOfMessagesNotVisible === '0'
        ) {
          break;
        }
        if (Date.now() > deadline) throw new Error(`queue not drained: ${JSON.stringify(Attributes)}`);
        await sleep(100);
      }
    } finally {
      await source.stop();
    }
    return { batches, problems };
  }

  /** Handles each record: a body fails the first time when listed in `failOnce`; returns the effects in order. */
  function recordHandler(failOnce: readonly string[]) {
    const failed = new Set<string>();
    const effects: string[] = [];
    const handle = (record: SQSRecord) => {
      if (failOnce.includes(record.body) && !failed.has(record.body)) {
        failed.add(record.body);
        throw new Error(`${record.body} failed`);
      }
      effects.push(record.body);
    };
    return { handle, effects };
  }

  /** The last effect of each message, in time order: what remains when redelivered work is redone. */
  const lastEffects = (effects: readonly string[], group: string) =>
    effects.filter((body, index) => body.startsWith(group) && effects.lastIndexOf(body) === index);

  it('keeps a group in order after a failure, with a handler using SqsFifoPartialProcessor', async () => {
    const { handle, effects } = recordHandler(['a2']);
    const handler: Handler = async (event) =>
      processPartialResponseSync(event, handle, new SqsFifoPartialProcessor(), { context: {} as Context });
    const { problems } = await drain(['a1', 'a2', 'b1', 'a3', 'b2', 'a4'], handler);
    expect(lastEffects(effects, 'a')).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(lastEffects(effects, 'b')).toEqual(['b1', 'b2']);
    // It reported every message after the failure itself: nothing to correct, nothing said.
    expect(effects.filter((body) => body === 'a3')).toHaveLength(1);
    expect(problems).toEqual([]);
  });

  it('keeps a group in order when the handler reports only the message that failed, and names the handler bug', async () => {
    const { handle, effects } = recordHandler(['a2']);
    const handler: Handler = async (event) => {
      const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
      for (const record of event.Records) {
        try {
          handle(record);
        } catch {
          batchItemFailures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures };
    };
    const { problems } = await drain(['a1', 'a2', 'b1', 'a3', 'b2', 'a4'], handler);
    // a3 and a4 ran once before a2 succeeded, but stayed in the queue and ran again after it.
    expect(lastEffects(effects, 'a')).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(effects.filter((body) => body === 'a3')).toHaveLength(2);
    expect(lastEffects(effects, 'b')).toEqual(['b1', 'b2']);
    expect(problems).toEqual([
      expect.stringMatching(/after a failed message of the same FIFO message group/),
    ]);
  });

  it('fails the whole batch on a function error and redelivers it in order', async () => {
    let calls = 0;
    const effects: string[] = [];
    const handler: Handler = async (event) => {
      calls += 1;
      if (calls === 1) throw new Error('crashed');
      for (const record of event.Records) effects.push(record.body);
      return { batchItemFailures: [] };
    };
    const { batches } = await drain(['c1', 'c2', 'c3'], handler);
    expect(batches[0]).toEqual(['c1', 'c2', 'c3']);
    expect(effects).toEqual(['c1', 'c2', 'c3']);
  });

  it('delivers batches of at most 10 to a FIFO mapping, and says so when the mapping asks for more', async () => {
    const bodies = Array.from({ length: 12 }, (_, index) => `d${String(index).padStart(2, '0')}`);
    const { batches, problems } = await drain(bodies, async () => undefined, { batchSize: 20 });
    expect(batches.map((batch) => batch.length)).toEqual([10, 2]);
    expect(batches.flat()).toEqual(bodies);
    expect(problems).toEqual([expect.stringMatching(/batch size of at most 10/)]);
  });

  /** A handler that takes `millis` per batch and records which batches overlapped in time. */
  function overlapRecorder(millis: number) {
    const running = new Set<string[]>();
    let mostAtOnce = 0;
    const overlaps: string[][][] = [];
    const handler: Handler = async (event) => {
      const bodies = event.Records.map((record) => record.body);
      running.add(bodies);
      mostAtOnce = Math.max(mostAtOnce, running.size);
      overlaps.push([...running]);
      await sleep(millis);
      running.delete(bodies);
      return undefined;
    };
    return { handler, overlaps, mostAtOnce: () => mostAtOnce };
  }

  it('runs at most MaximumConcurrency invocations of a mapping at once', async () => {
    const bodies = Array.from({ length: 12 }, (_, index) => `s${index}`);
    const { handler, mostAtOnce } = overlapRecorder(150);
    const { batches } = await drain(bodies, handler, { batchSize: 1, concurrency: 3, fifo: false });
    expect(batches.flat().sort()).toEqual([...bodies].sort());
    expect(mostAtOnce()).toBe(3);
  });

  it('keeps one batch per FIFO message group in flight, while other groups run in parallel', async () => {
    const bodies = ['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3'];
    const { handler, overlaps, mostAtOnce } = overlapRecorder(150);
    await drain(bodies, handler, { batchSize: 1, concurrency: 3 });
    for (const running of overlaps) {
      const groups = running.flat().map((body) => body.slice(0, 1));
      expect(new Set(groups).size).toBe(groups.length);
    }
    expect(mostAtOnce()).toBeGreaterThan(1);
  });
});
