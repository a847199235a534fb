/**
 * SQS event source mappings, run the way Lambda runs them: long-poll the queue, invoke the function
 * with up to BatchSize records, delete what succeeded. A function error leaves the whole batch to
 * reappear after the visibility timeout; with ReportBatchItemFailures only the listed records do.
 * FIFO queues: at most 10 records and no batching window (Lambda refuses both), and a partial batch
 * failure keeps the rest of the failed message's group (SqsFifoPartialProcessor semantics).
 * Redrive to the DLQ after maxReceiveCount is the SQS service's own behaviour.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type RuntimeClock, WallClock } from '../clock';
import type { InvocationResult } from './host';

/** Long-poll wait of an idle mapping (SQS's maximum): the service answers as soon as a message arrives. */
const LONG_POLL_SECONDS = 20;
/** Lambda's limit for FIFO event sources. */
const FIFO_MAX_BATCH_SIZE = 10;

export interface SqsEventSourceSpec {
  readonly logicalId: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly functionReference: string;
  readonly batchSize: number;
  readonly maximumBatchingWindowSeconds: number;
  readonly reportBatchItemFailures: boolean;
  /** Pollers working in parallel (ScalingConfig.MaximumConcurrency, capped by the function's). */
  readonly concurrency: number;
  readonly region: string;
}

export interface SqsEventSourceDependencies {
  readonly sqs: SQSClient;
  readonly invoke: (functionReference: string, event: unknown) => Promise<InvocationResult>;
  readonly onProblem: (message: string) => void;
  /** Its windows, back-offs and dates run on it. @default - the wall clock */
  readonly clock?: RuntimeClock;
  /**
   * Fault hook: milliseconds after which a received message is delivered once more in its own
   * invocation (at-least-once delivery); undefined delivers it once. @default - never
   */
  readonly duplicateDelivery?: (message: Message) => number | undefined;
}

/** Lambda's SQS event record shape. */
export function toLambdaRecord(message: Message, queueArn: string, region: string): Record<string, unknown> {
  const messageAttributes: Record<string, unknown> = {};
  for (const [name, attribute] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      stringValue: attribute.StringValue,
      binaryValue: attribute.BinaryValue ? Buffer.from(attribute.BinaryValue).toString('base64') : undefined,
      stringListValues: attribute.StringListValues ?? [],
      binaryListValues: (attribute.BinaryListValues ?? []).map((value) =>
        Buffer.from(value).toString('base64'),
      ),
      dataType: attribute.DataType,
    };
  }
  return {
    messageId: message.MessageId,
    receiptHandle: message.ReceiptHandle,
    body: message.Body ?? '',
    attributes: message.Attributes ?? {},
    messageAttributes,
    md5OfBody: message.MD5OfBody,
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/**
 * Which messages of a batch to delete after an invocation: none on a function error or an invalid
 * partial-batch response (Lambda then treats the whole batch as failed), all but the reported
 * failures otherwise.
 */
export function messagesToDelete(
  messages: readonly Message[],
  result: InvocationResult,
  reportBatchItemFailures: boolean,
): { readonly delete: readonly Message[]; readonly problem?: string } {
  if (!result.ok) return { delete: [] };
  if (!reportBatchItemFailures) return { delete: messages };
  const payload = result.payload;
  if (payload === null || payload === undefined) return { delete: messages };
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    return { delete: [], problem: 'the function returned an invalid partial batch response' };
  }
  const failures = (payload as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return { delete: messages };
  if (!Array.isArray(failures)) {
    return { delete: [], problem: 'batchItemFailures is not a list' };
  }
  const failedIds = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !messages.some((message) => message.MessageId === id)) {
      return {
        delete: [],
        problem: `batchItemFailures names an unknown itemIdentifier ${JSON.stringify(id)}`,
      };
    }
    failedIds.add(id);
  }
  return { delete: messages.filter((message) => !failedIds.has(message.MessageId ?? '')) };
}

/**
 * FIFO order after a partial batch failure: within a message group, nothing after the first message
 * kept for a retry may be deleted, so the group resumes from that message in order. This is what
 * Powertools' SqsFifoPartialProcessor reports; a handler that reports only the failed message gets
 * the same outcome here, plus a problem naming what AWS Lambda would have done (deleted the rest).
 */
export function keepFifoGroupOrder(
  messages: readonly Message[],
  decision: { readonly delete: readonly Message[]; readonly problem?: string },
): { readonly delete: readonly Message[]; readonly problem?: string } {
  const deleted = new Set(decision.delete);
  const stoppedGroups = new Set<string>();
  const kept: Message[] = [];
  const heldBack: string[] = [];
  for (const message of messages) {
    const group = message.Attributes?.MessageGroupId ?? '';
    if (stoppedGroups.has(group)) {
      if (deleted.has(message)) heldBack.push(message.MessageId ?? '?');
      continue;
    }
    if (deleted.has(message)) kept.push(message);
    else stoppedGroups.add(group);
  }
  if (heldBack.length === 0) return decision;
  const problem =
    `the function reported success for ${heldBack.join(', ')} after a failed message of the same FIFO ` +
    'message group; they are retried to keep the group in order (on AWS, Lambda would delete them: ' +
    'report every message after the first failure, as SqsFifoPartialProcessor does)';
  return { delete: kept, problem: decision.problem ? `${decision.problem}; ${problem}` : problem };
}

export class SqsEventSource {
  private readonly abort = new AbortController();
  private receiving: Promise<void> | undefined;
  private readonly invocations = new Set<Promise<void>>();
  private readonly duplicates = new Set<Promise<void>>();
  private readonly fifo: boolean;
  private readonly batchSize: number;
  private readonly batchingWindowMillis: number;
  private readonly clock: RuntimeClock;

  constructor(
    readonly spec: SqsEventSourceSpec,
    private readonly dependencies: SqsEventSourceDependencies,
  ) {
    this.clock = dependencies.clock ?? new WallClock();
    this.fifo = spec.queueArn.endsWith('.fifo');
    this.batchSize = this.fifo ? Math.min(FIFO_MAX_BATCH_SIZE, spec.batchSize) : spec.batchSize;
    this.batchingWindowMillis = this.fifo ? 0 : spec.maximumBatchingWindowSeconds * 1000;
  }

  start(): void {
    if (
      this.fifo &&
      (this.spec.batchSize > FIFO_MAX_BATCH_SIZE || this.spec.maximumBatchingWindowSeconds > 0)
    ) {
      this.dependencies.onProblem(
        `event source ${this.spec.logicalId}: Lambda allows FIFO queues a batch size of at most ${FIFO_MAX_BATCH_SIZE} ` +
          `and no batching window (got ${this.spec.batchSize} and ${this.spec.maximumBatchingWindowSeconds} s); ` +
          `running with ${this.batchSize} and none`,
      );
    }
    this.receiving = this.poll();
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /**
   * One batch: a long poll that the service answers as soon as a message is available, then more
   * receives while messages keep coming, up to the batch size or the end of the batching window.
   */
  private async receiveBatch(): Promise<Message[]> {
    const batch: Message[] = [];
    let windowEnds = 0;
    while (!this.stopped && batch.length < this.batchSize) {
      const waitSeconds =
        batch.length === 0
          ? LONG_POLL_SECONDS
          : Math.min(LONG_POLL_SECONDS, Math.max(0, Math.ceil((windowEnds - this.clock.now()) / 1000)));
      const { Messages = [] } = await this.dependencies.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.spec.queueUrl,
          MaxNumberOfMessages: Math.min(10, this.batchSize - batch.length),
          WaitTimeSeconds: waitSeconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: this.abort.signal },
      );
      if (batch.length === 0) windowEnds = this.clock.now() + this.batchingWindowMillis;
      batch.push(...Messages);
      if (Messages.length === 0 && batch.length > 0) break;
    }
    return batch;
  }

  private idle(millis: number): Promise<void> {
    return this.clock.sleep(millis, this.abort.signal);
  }

  /**
   * One receiving loop per mapping, running up to `concurrency` invocations at once: an idle mapping
   * holds one long poll (one connection), not one per poller, and a busy one receives again as soon
   * as an invocation slot is free.
   */
  private async poll(): Promise<void> {
    const slots = Math.max(1, this.spec.concurrency);
    while (!this.stopped) {
      if (this.invocations.size >= slots) {
        await Promise.race(this.invocations);
        continue;
      }
      try {
        const batch = await this.receiveBatch();
        if (batch.length === 0 || this.stopped) continue;
        const invocation = this.process(batch)
          .catch((error: Error) => {
            if (!this.stopped) {
              this.dependencies.onProblem(
                `event source ${this.spec.logicalId}: ${error.name}: ${error.message}`,
              );
            }
          })
          .finally(() => this.invocations.delete(invocation));
        this.invocations.add(invocation);
      } catch (error) {
        if (this.stopped) return;
        this.dependencies.onProblem(
          `event source ${this.spec.logicalId}: ${(error as Error).name}: ${(error as Error).message}`,
        );
        await this.idle(1000);
      }
    }
  }

  private async process(batch: Message[]): Promise<void> {
    for (const message of batch) {
      const delay = this.dependencies.duplicateDelivery?.(message);
      if (delay !== undefined) this.deliverAgain(message, delay);
    }
    const event = {
      Records: batch.map((message) => toLambdaRecord(message, this.spec.queueArn, this.spec.region)),
    };
    const result = await this.dependencies.invoke(this.spec.functionReference, event);
    const plain = messagesToDelete(batch, result, this.spec.reportBatchItemFailures);
    const decision = this.fifo ? keepFifoGroupOrder(batch, plain) : plain;
    if (decision.problem) {
      this.dependencies.onProblem(
        `event source ${this.spec.logicalId}: ${decision.problem}${plain.problem ? '; the whole batch will be retried' : ''}`,
      );
    }
    // DeleteMessageBatch takes at most 10 entries; BatchSize may be larger.
    for (let start = 0; start < decision.delete.length && !this.stopped; start += 10) {
      const chunk = decision.delete.slice(start, start + 10);
      const { Failed = [] } = await this.dependencies.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.spec.queueUrl,
          Entries: chunk.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
      for (const failed of Failed) {
        this.dependencies.onProblem(
          `event source ${this.spec.logicalId}: delete failed: ${failed.Code} ${failed.Message}`,
        );
      }
    }
  }

  /**
   * The second delivery of a duplicated message. Its outcome deletes nothing: the first delivery
   * owns the receipt, and a copy that fails is simply one more at-least-once delivery gone by.
   */
  private deliverAgain(message: Message, delayMillis: number): void {
    const delivery = (async () => {
      await this.idle(delayMillis);
      if (this.stopped) return;
      const event = { Records: [toLambdaRecord(message, this.spec.queueArn, this.spec.region)] };
      await this.dependencies.invoke(this.spec.functionReference, event);
    })().catch((error: Error) => {
      if (!this.stopped) {
        this.dependencies.onProblem(
          `event source ${this.spec.logicalId}: duplicate delivery: ${error.message}`,
        );
      }
    });
    this.duplicates.add(delivery);
    void delivery.finally(() => this.duplicates.delete(delivery));
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled([this.receiving, ...this.invocations, ...this.duplicates]);
  }
}
