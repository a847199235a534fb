/**
 * SQS event source mappings, run the way Lambda runs them: long-poll the queue, invoke the function
 * with up to BatchSize records, delete what succeeded. A function error leaves the whole batch to
 * reappear after the visibility timeout; with ReportBatchItemFailures only the listed records do.
 * Redrive to the DLQ after maxReceiveCount is the emulator's (local-aws-sqs) own behaviour.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { InvocationResult } from './lambda-host';

/** Pause between empty receives (the emulator's own answer takes ~40 ms more). */
const MIN_POLL_INTERVAL_MILLIS = 25;
const MAX_POLL_INTERVAL_MILLIS = 200;

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

export class SqsEventSource {
  private readonly abort = new AbortController();
  private readonly pollers: Promise<void>[] = [];
  private readonly duplicates = new Set<Promise<void>>();

  constructor(
    readonly spec: SqsEventSourceSpec,
    private readonly dependencies: SqsEventSourceDependencies,
  ) {}

  start(): void {
    for (let index = 0; index < Math.max(1, this.spec.concurrency); index += 1) {
      this.pollers.push(this.poll(index));
    }
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /**
   * Lambda long-polls. local-aws-sqs answers a long poll only when the wait ends or the batch is
   * full, and hides the messages it picked meanwhile, so a 20 s poll would outlast short visibility
   * timeouts. Short polls in a loop give the same delivery latency without that distortion.
   */
  private async receiveBatch(poller: number): Promise<Message[]> {
    const { sqs } = this.dependencies;
    // An idle queue is polled less often (extra pollers back off further), a busy one at once.
    let pause = MIN_POLL_INTERVAL_MILLIS;
    const maxPause = poller === 0 ? MAX_POLL_INTERVAL_MILLIS : 2 * MAX_POLL_INTERVAL_MILLIS;
    const batch: Message[] = [];
    const windowEnds = Date.now() + this.spec.maximumBatchingWindowSeconds * 1000;
    while (!this.stopped && batch.length < this.spec.batchSize) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.spec.queueUrl,
          MaxNumberOfMessages: Math.min(10, this.spec.batchSize - batch.length),
          WaitTimeSeconds: 0,
          MessageSystemAttributeNames: ['All'],
          // local-aws-sqs reads only the older name of the same parameter.
          AttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: this.abort.signal },
      );
      batch.push(...Messages);
      if (Messages.length === 0) {
        if (batch.length > 0 && Date.now() >= windowEnds) break;
        await this.idle(pause);
        pause = Math.min(maxPause, pause * 2);
      }
    }
    return batch;
  }

  private idle(millis: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.abort.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, millis);
      this.abort.signal.addEventListener('abort', done, { once: true });
    });
  }

  private async poll(poller: number): Promise<void> {
    while (!this.stopped) {
      try {
        const batch = await this.receiveBatch(poller);
        if (batch.length === 0 || this.stopped) continue;
        await this.process(batch);
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
    const decision = messagesToDelete(batch, result, this.spec.reportBatchItemFailures);
    if (decision.problem) {
      this.dependencies.onProblem(
        `event source ${this.spec.logicalId}: ${decision.problem}; the whole batch will be retried`,
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
    await Promise.allSettled([...this.pollers, ...this.duplicates]);
  }
}
