/**
 * EventBridge Pipes whose source is a DynamoDB stream, on the same stream-reading core as Lambda's
 * event source mappings (stream-reader.ts). The pipe filters records (FilterCriteria, EventBridge
 * patterns), then sends each batch to its target the way Pipes does: Lambda functions and state
 * machines get the batch as one JSON array; SQS queues, SNS topics and event buses get one message,
 * notification or event per record. Pipes retry forever by default (until records expire); the
 * source parameters may limit that, bisect failing batches, and name a dead-letter queue.
 *
 * Not run (the pipe is named instead): enrichment, input templates (InputTemplate), and targets
 * other than the five above.
 */

import type { DynamoDBStreamsClient, _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import { type RuntimeClock, WallClock } from '../clock';
import { selectPath } from '../eventbridge/event-buses';
import type { InvocationResult } from '../lambda/host';
import {
  isLocalDestinationArn,
  isStartingPosition,
  parseFilterCriteria,
  recordFilter,
} from './stream-event-source';
import {
  type BatchOutcome,
  DynamoDbStreamReader,
  type StreamReaderSpec,
  type TableWrites,
} from './stream-reader';
import { pipeDeadLetterRecord, toLambdaDynamoDbRecord } from './stream-records';

export type PipeTarget =
  | {
      readonly kind: 'lambda';
      readonly arn: string;
      readonly invocationType: 'REQUEST_RESPONSE' | 'FIRE_AND_FORGET';
    }
  | { readonly kind: 'states'; readonly arn: string }
  | {
      readonly kind: 'sqs';
      readonly arn: string;
      readonly messageGroupId?: string;
      readonly messageDeduplicationId?: string;
    }
  | { readonly kind: 'sns'; readonly arn: string }
  | {
      readonly kind: 'events';
      readonly arn: string;
      readonly source?: string;
      readonly detailType?: string;
      readonly resources?: readonly string[];
    };

export interface DynamoDbStreamPipeSpec
  extends Omit<StreamReaderSpec, 'filter' | 'logicalId' | 'bisectBatchOnError' | 'retryDelayMillis'> {
  readonly logicalId: string;
  readonly pipeName: string;
  readonly pipeArn: string;
  readonly region: string;
  readonly target: PipeTarget;
  /** OnPartialBatchItemFailure AUTOMATIC_BISECT. */
  readonly bisect: boolean;
  readonly filterPatterns?: readonly unknown[];
  /** DeadLetterConfig.Arn: an SQS queue or SNS topic ARN. */
  readonly deadLetterArn?: string;
  readonly retryDelayMillis?: StreamReaderSpec['retryDelayMillis'];
}

/** How the runtime reaches each kind of target; each call either succeeds or throws. */
export interface PipeTargetDelivery {
  sendMessage(
    queueArn: string,
    body: string,
    options: { readonly messageGroupId?: string; readonly messageDeduplicationId?: string },
  ): Promise<void>;
  publish(topicArn: string, message: string): Promise<void>;
  putEvents(entries: readonly Record<string, unknown>[]): Promise<{ readonly FailedEntryCount?: number }>;
  invoke(functionArn: string, event: unknown): Promise<InvocationResult>;
  invokeAsync(functionArn: string, event: unknown): void;
  startExecution(stateMachineArn: string, input: string): Promise<void>;
}

const WALL = new WallClock();

export interface DynamoDbStreamPipeDependencies {
  readonly streams: DynamoDBStreamsClient;
  readonly targets: PipeTargetDelivery;
  /** Sends a message to an SQS queue or SNS topic by ARN (the dead-letter queue). */
  readonly sendToDestination: (destinationArn: string, message: string) => Promise<void>;
  readonly onProblem: (message: string) => void;
  /** Its windows, back-offs and dates run on it. @default - the wall clock */
  readonly clock?: RuntimeClock;
  /** Writes to the tables: on a virtual clock idle shards wait for them (stream-reader.ts). @default - none */
  readonly writes?: TableWrites;
}

/** Why a failed delivery is being retried (kept for problems; Pipes' DLQ record carries no detail). */
type FailureDetail = string;

const PIPE_BATCH_SIZE_DEFAULT = 1;
/** SQS, SNS and EventBridge take at most 10 entries per batch call. */
const ENTRY_BATCH_LIMIT = 10;

/** A target parameter: a JSON path into the record when it starts with `$.`, else the literal. */
function dynamicParameter(value: string | undefined, record: unknown): string | undefined {
  if (value === undefined || !value.startsWith('$.')) return value;
  const selected = selectPath(record, value);
  return selected === undefined
    ? undefined
    : typeof selected === 'string'
      ? selected
      : JSON.stringify(selected);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return undefined;
}

/**
 * The pipe's spec from its resolved CloudFormation properties, or why it is not run. `streamArns`
 * are the stream ARNs of this app's tables, `knownTarget` tells whether an ARN names a queue,
 * topic, function, state machine or bus that runs locally.
 */
export function dynamoDbStreamPipeSpec(
  logicalId: string,
  properties: Record<string, unknown>,
  where: {
    readonly pipeName: string;
    readonly region: string;
    readonly accountId: string;
    readonly isLocalStream: (arn: string) => boolean;
    readonly isLocalDestination: (arn: string) => boolean;
  },
): DynamoDbStreamPipeSpec | string {
  const source = String(properties.Source ?? '');
  if (!source.startsWith('arn:aws:dynamodb:') || !source.includes('/stream/')) {
    return `source ${source || '(none)'} is not a DynamoDB stream (only DynamoDB stream pipes run locally)`;
  }
  if (!where.isLocalStream(source)) return `source ${source} is not the stream of a table of this app`;
  if (properties.Enrichment !== undefined) return 'enrichment is not run locally';
  const sourceParameters = asRecord(properties.SourceParameters);
  const stream = asRecord(sourceParameters.DynamoDBStreamParameters);
  const startingPosition = stream.StartingPosition;
  if (!isStartingPosition(startingPosition)) {
    return `StartingPosition ${String(startingPosition)} is not TRIM_HORIZON or LATEST`;
  }
  if ((asNumber(stream.ParallelizationFactor) ?? 1) > 1) {
    return 'ParallelizationFactor above 1 is not run locally (one reader per shard)';
  }
  const filterPatterns = parseFilterCriteria(sourceParameters.FilterCriteria);
  if (typeof filterPatterns === 'string') return filterPatterns;
  const deadLetterArn = asRecord(stream.DeadLetterConfig).Arn;
  if (
    deadLetterArn !== undefined &&
    !isLocalDestinationArn(String(deadLetterArn), where.isLocalDestination)
  ) {
    return `dead-letter destination ${String(deadLetterArn)} is not a queue or topic of this app`;
  }
  const targetParameters = asRecord(properties.TargetParameters);
  if (targetParameters.InputTemplate !== undefined) return 'InputTemplate is not applied locally';
  const target = pipeTarget(String(properties.Target ?? ''), targetParameters);
  if (typeof target === 'string') return target;
  if (!where.isLocalDestination(target.arn)) return `target ${target.arn} does not run locally`;
  return {
    logicalId,
    pipeName: where.pipeName,
    pipeArn: `arn:aws:pipes:${where.region}:${where.accountId}:pipe/${where.pipeName}`,
    region: where.region,
    streamArn: source,
    startingPosition,
    batchSize: asNumber(stream.BatchSize) ?? PIPE_BATCH_SIZE_DEFAULT,
    maximumBatchingWindowSeconds: asNumber(stream.MaximumBatchingWindowInSeconds) ?? 0,
    maximumRetryAttempts: asNumber(stream.MaximumRetryAttempts) ?? -1,
    maximumRecordAgeSeconds: asNumber(stream.MaximumRecordAgeInSeconds) ?? -1,
    bisect: stream.OnPartialBatchItemFailure === 'AUTOMATIC_BISECT',
    target,
    ...(filterPatterns ? { filterPatterns } : {}),
    ...(deadLetterArn !== undefined ? { deadLetterArn: String(deadLetterArn) } : {}),
  };
}

function pipeTarget(arn: string, parameters: Record<string, unknown>): PipeTarget | string {
  const service = arn.split(':')[2];
  if (service === 'lambda') {
    const invocationType = asRecord(parameters.LambdaFunctionParameters).InvocationType ?? 'REQUEST_RESPONSE';
    if (invocationType !== 'REQUEST_RESPONSE' && invocationType !== 'FIRE_AND_FORGET') {
      return `Lambda InvocationType ${String(invocationType)} is unknown`;
    }
    return { kind: 'lambda', arn, invocationType };
  }
  if (service === 'states') {
    const invocationType = asRecord(parameters.StepFunctionStateMachineParameters).InvocationType;
    if (invocationType !== 'FIRE_AND_FORGET') {
      return 'state machine targets run only with InvocationType FIRE_AND_FORGET locally';
    }
    return { kind: 'states', arn };
  }
  if (service === 'sqs') {
    const sqs = asRecord(parameters.SqsQueueParameters);
    return {
      kind: 'sqs',
      arn,
      ...(typeof sqs.MessageGroupId === 'string' ? { messageGroupId: sqs.MessageGroupId } : {}),
      ...(typeof sqs.MessageDeduplicationId === 'string'
        ? { messageDeduplicationId: sqs.MessageDeduplicationId }
        : {}),
    };
  }
  if (service === 'sns') return { kind: 'sns', arn };
  if (service === 'events') {
    const bus = asRecord(parameters.EventBridgeEventBusParameters);
    return {
      kind: 'events',
      arn,
      ...(typeof bus.Source === 'string' ? { source: bus.Source } : {}),
      ...(typeof bus.DetailType === 'string' ? { detailType: bus.DetailType } : {}),
      ...(Array.isArray(bus.Resources) ? { resources: bus.Resources.map(String) } : {}),
    };
  }
  return `target ${arn || '(none)'} is not a kind of target the local runtime delivers to`;
}

export class DynamoDbStreamPipe {
  private readonly reader: DynamoDbStreamReader<FailureDetail>;

  constructor(
    readonly spec: DynamoDbStreamPipeSpec,
    private readonly dependencies: DynamoDbStreamPipeDependencies,
  ) {
    const toRecord = (record: StreamRecord) => toLambdaDynamoDbRecord(record, spec.streamArn, spec.region);
    const filter = recordFilter(spec.filterPatterns, toRecord);
    this.reader = new DynamoDbStreamReader<FailureDetail>(
      {
        ...spec,
        logicalId: spec.logicalId,
        bisectBatchOnError: spec.bisect,
        ...(filter ? { filter } : {}),
      },
      {
        streams: dependencies.streams,
        onProblem: dependencies.onProblem,
        ...(dependencies.clock && { clock: dependencies.clock }),
        ...(dependencies.writes && { writes: dependencies.writes }),
        deliver: async (records) => {
          const outcome = await this.deliver(records.map(toRecord));
          if (!outcome.ok && outcome.detail) {
            dependencies.onProblem(`pipe ${spec.logicalId}: ${outcome.detail}; the batch will be retried`);
          }
          return outcome;
        },
        discard: async (discarded) => {
          dependencies.onProblem(
            `pipe ${spec.logicalId}: ${discarded.records.length} records given up (${discarded.condition})` +
              (spec.deadLetterArn ? `, described to ${spec.deadLetterArn}` : ''),
          );
          if (!spec.deadLetterArn) return;
          const record = pipeDeadLetterRecord({
            pipeArn: spec.pipeArn,
            condition: discarded.condition,
            records: discarded.records,
            shardId: discarded.shardId,
            streamArn: discarded.streamArn,
            now: (dependencies.clock ?? WALL).date(),
          });
          await dependencies.sendToDestination(spec.deadLetterArn, JSON.stringify(record));
        },
      },
    );
  }

  /** Sends one batch of records (Lambda's record shape) to the target. */
  private async deliver(events: readonly Record<string, unknown>[]): Promise<BatchOutcome<FailureDetail>> {
    const { target } = this.spec;
    const { targets } = this.dependencies;
    switch (target.kind) {
      case 'lambda': {
        if (target.invocationType === 'FIRE_AND_FORGET') {
          targets.invokeAsync(target.arn, events);
          return { ok: true };
        }
        const result = await targets.invoke(target.arn, events);
        if (!result.ok) {
          return {
            ok: false,
            retryFrom: 0,
            bisectable: true,
            detail: `the target failed: ${result.error.errorType}: ${result.error.errorMessage}`,
          };
        }
        return partialFailure(events, result.payload);
      }
      case 'states':
        await targets.startExecution(target.arn, JSON.stringify(events));
        return { ok: true };
      case 'sqs':
      case 'sns':
        // One message per record, in order: what was sent before a failure is not sent again.
        for (const [index, event] of events.entries()) {
          try {
            if (target.kind === 'sns') await targets.publish(target.arn, JSON.stringify(event));
            else {
              const messageGroupId = dynamicParameter(target.messageGroupId, event);
              const messageDeduplicationId = dynamicParameter(target.messageDeduplicationId, event);
              await targets.sendMessage(target.arn, JSON.stringify(event), {
                ...(messageGroupId !== undefined ? { messageGroupId } : {}),
                ...(messageDeduplicationId !== undefined ? { messageDeduplicationId } : {}),
              });
            }
          } catch (error) {
            return {
              ok: false,
              retryFrom: index,
              bisectable: index === 0,
              detail: `sending to ${target.arn} failed: ${(error as Error).message}`,
            };
          }
        }
        return { ok: true };
      case 'events':
        for (let start = 0; start < events.length; start += ENTRY_BATCH_LIMIT) {
          const chunk = events.slice(start, start + ENTRY_BATCH_LIMIT);
          const { FailedEntryCount = 0 } = await targets.putEvents(
            chunk.map((event) => ({
              EventBusName: target.arn,
              Source: target.source ?? `Pipe ${this.spec.pipeName}`,
              DetailType: target.detailType ?? 'Event from aws:dynamodb',
              Resources: target.resources ?? [],
              Detail: JSON.stringify(event),
            })),
          );
          if (FailedEntryCount > 0) {
            return {
              ok: false,
              retryFrom: start,
              bisectable: start === 0,
              detail: `PutEvents to ${target.arn} failed for ${FailedEntryCount} entries`,
            };
          }
        }
        return { ok: true };
    }
  }

  /** Resolves once the stream's shards are positioned (LATEST starts here). */
  start(): Promise<void> {
    return this.reader.start();
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }
}

/** A Lambda target's partial batch failure: Pipes identifies records of stream sources by eventID. */
function partialFailure(
  events: readonly Record<string, unknown>[],
  payload: unknown,
): BatchOutcome<FailureDetail> {
  const failures = asRecord(payload).batchItemFailures;
  if (payload === null || payload === undefined || failures === undefined || failures === null)
    return { ok: true };
  if (!Array.isArray(failures)) {
    return { ok: false, retryFrom: 0, bisectable: true, detail: 'batchItemFailures is not a list' };
  }
  let lowest: number | undefined;
  for (const failure of failures) {
    const identifier = asRecord(failure).itemIdentifier;
    const index = events.findIndex((event) => event.eventID === identifier);
    if (typeof identifier !== 'string' || index === -1) {
      return {
        ok: false,
        retryFrom: 0,
        bisectable: true,
        detail: `batchItemFailures names ${JSON.stringify(identifier)}, not an eventID of the batch`,
      };
    }
    lowest = lowest === undefined ? index : Math.min(lowest, index);
  }
  return lowest === undefined
    ? { ok: true }
    : { ok: false, retryFrom: lowest, bisectable: false, detail: 'the target reported failed records' };
}
