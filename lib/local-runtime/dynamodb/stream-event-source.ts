/**
 * Lambda event source mappings on a DynamoDB stream, run the way Lambda runs them (see
 * stream-reader.ts for batching, retries, bisection and record age): the function gets Lambda's
 * DynamoDB event, may answer a partial batch failure (ReportBatchItemFailures: processing resumes
 * at the lowest failed sequence number; an invalid answer fails the whole batch), and given-up
 * records are described to DestinationConfig.OnFailure (SQS or SNS) in Lambda's on-failure record.
 */

import type { DynamoDBStreamsClient, _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import { type RuntimeClock, WallClock } from '../clock';
import { EventPatternError, matchesEventPattern } from '../eventbridge/event-pattern';
import type { InvocationResult } from '../lambda/host';
import {
  type BatchOutcome,
  DynamoDbStreamReader,
  type StartingPosition,
  type StreamReaderSpec,
  type TableWrites,
} from './stream-reader';
import { type LastInvocation, lambdaOnFailureRecord, toLambdaDynamoDbRecord } from './stream-records';

export interface DynamoDbStreamEventSourceSpec
  extends Omit<StreamReaderSpec, 'filter' | 'bisectBatchOnError'> {
  readonly functionReference: string;
  /** The function's ARN, as written in on-failure records. */
  readonly functionArn: string;
  readonly reportBatchItemFailures: boolean;
  readonly bisectBatchOnFunctionError: boolean;
  /** FilterCriteria.Filters[].Pattern, parsed: a record is delivered when any pattern matches it. */
  readonly filterPatterns?: readonly unknown[];
  /** DestinationConfig.OnFailure.Destination: an SQS queue or SNS topic ARN. */
  readonly onFailureDestination?: string;
  readonly region: string;
}

const WALL = new WallClock();

export interface DynamoDbStreamEventSourceDependencies {
  readonly streams: DynamoDBStreamsClient;
  readonly invoke: (functionReference: string, event: unknown) => Promise<InvocationResult>;
  /** Sends a message to an SQS queue or SNS topic by ARN (the on-failure destination). */
  readonly sendToDestination: (destinationArn: string, message: string) => Promise<void>;
  readonly onProblem: (message: string) => void;
  /** Its windows, back-offs and dates run on it. @default - the wall clock */
  readonly clock?: RuntimeClock;
  /** Writes to the tables: on a virtual clock idle shards wait for them (stream-reader.ts). @default - none */
  readonly writes?: TableWrites;
  /**
   * Hears of each batch sent to the function, with the age of its last record (Lambda's IteratorAge
   * metric, published per batch as the mapping sends it). @default - none
   */
  readonly onIteratorAge?: (iteratorAgeMillis: number) => void;
}

/**
 * What a partial batch response asks for: null when the whole batch succeeded, the index of the
 * lowest failed record, or 'invalid' (Lambda then treats the whole batch as failed).
 */
export function firstFailedRecord(
  records: readonly StreamRecord[],
  payload: unknown,
): number | null | { readonly invalid: string } {
  if (payload === null || payload === undefined) return null;
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    return { invalid: 'the function returned an invalid partial batch response' };
  }
  const failures = (payload as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return null;
  if (!Array.isArray(failures)) return { invalid: 'batchItemFailures is not a list' };
  let lowest: number | null = null;
  for (const failure of failures) {
    const identifier = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    const index = records.findIndex((record) => record.dynamodb?.SequenceNumber === identifier);
    if (typeof identifier !== 'string' || identifier === '' || index === -1) {
      return {
        invalid: `batchItemFailures names ${JSON.stringify(identifier)}, not a sequence number of the batch`,
      };
    }
    lowest = lowest === null ? index : Math.min(lowest, index);
  }
  return lowest;
}

/** A record filter from FilterCriteria patterns (Lambda's event filtering uses EventBridge patterns). */
export function recordFilter(
  patterns: readonly unknown[] | undefined,
  toRecord: (record: StreamRecord) => unknown,
): ((record: StreamRecord) => boolean) | undefined {
  if (!patterns || patterns.length === 0) return undefined;
  for (const pattern of patterns) validatePattern(pattern);
  return (record) => patterns.some((pattern) => matchesEventPattern(pattern, toRecord(record)));
}

/**
 * Throws EventPatternError for a pattern the matcher cannot apply, by trying each of its matchers on
 * its own (a matcher is otherwise only evaluated when a record reaches it, and Lambda refuses an
 * invalid filter when the mapping is created, not when a record arrives).
 */
function validatePattern(pattern: unknown): void {
  if (typeof pattern !== 'object' || pattern === null || Array.isArray(pattern)) {
    throw new EventPatternError(`A filter pattern must be a JSON object, got ${JSON.stringify(pattern)}`);
  }
  for (const [key, rule] of Object.entries(pattern)) {
    if (key === '$or') {
      if (!Array.isArray(rule)) throw new EventPatternError('$or must be a list of patterns');
      for (const alternative of rule) validatePattern(alternative);
    } else if (Array.isArray(rule)) {
      for (const matcher of rule) {
        for (const probe of ['x', 1]) matchesEventPattern({ field: [matcher] }, { field: probe });
      }
    } else {
      validatePattern(rule);
    }
  }
}

/** Parses FilterCriteria.Filters[].Pattern (JSON strings) or explains why it cannot. */
export function parseFilterCriteria(filterCriteria: unknown): readonly unknown[] | string | undefined {
  if (filterCriteria === undefined || filterCriteria === null) return undefined;
  const filters = (filterCriteria as { Filters?: unknown }).Filters;
  if (!Array.isArray(filters)) return 'FilterCriteria has no Filters list';
  try {
    const patterns = filters.map((filter) => {
      const pattern = (filter as { Pattern?: unknown } | null)?.Pattern;
      return typeof pattern === 'string' ? (JSON.parse(pattern) as unknown) : pattern;
    });
    recordFilter(patterns, () => ({}));
    return patterns;
  } catch (error) {
    const reason =
      error instanceof EventPatternError || error instanceof SyntaxError ? error.message : String(error);
    return `FilterCriteria cannot be applied locally: ${reason}`;
  }
}

export function isStartingPosition(value: unknown): value is StartingPosition {
  return value === 'TRIM_HORIZON' || value === 'LATEST';
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return undefined;
}

/**
 * The spec of an AWS::Lambda::EventSourceMapping on a DynamoDB stream, from its resolved
 * properties, or why it is not run.
 */
export function dynamoDbStreamEventSourceSpec(
  logicalId: string,
  properties: Record<string, unknown>,
  where: {
    readonly functionArn: string;
    readonly region: string;
    readonly isLocalDestination: (arn: string) => boolean;
  },
): DynamoDbStreamEventSourceSpec | string {
  const startingPosition = properties.StartingPosition;
  if (!isStartingPosition(startingPosition)) {
    return `StartingPosition ${String(startingPosition)} is not TRIM_HORIZON or LATEST`;
  }
  if ((asNumber(properties.ParallelizationFactor) ?? 1) > 1) {
    return 'ParallelizationFactor above 1 is not run locally (one reader per shard)';
  }
  if (properties.TumblingWindowInSeconds !== undefined) return 'tumbling windows are not run locally';
  const filterPatterns = parseFilterCriteria(properties.FilterCriteria);
  if (typeof filterPatterns === 'string') return filterPatterns;
  const onFailure = (properties.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)
    ?.OnFailure?.Destination;
  if (onFailure !== undefined && !isLocalDestinationArn(String(onFailure), where.isLocalDestination)) {
    return `on-failure destination ${String(onFailure)} is not a queue or topic of this app`;
  }
  const responseTypes = Array.isArray(properties.FunctionResponseTypes)
    ? properties.FunctionResponseTypes
    : [];
  return {
    logicalId,
    streamArn: String(properties.EventSourceArn),
    functionReference: where.functionArn,
    functionArn: where.functionArn,
    startingPosition,
    batchSize: asNumber(properties.BatchSize) ?? 100,
    maximumBatchingWindowSeconds: asNumber(properties.MaximumBatchingWindowInSeconds) ?? 0,
    maximumRetryAttempts: asNumber(properties.MaximumRetryAttempts) ?? -1,
    maximumRecordAgeSeconds: asNumber(properties.MaximumRecordAgeInSeconds) ?? -1,
    bisectBatchOnFunctionError: properties.BisectBatchOnFunctionError === true,
    reportBatchItemFailures: responseTypes.includes('ReportBatchItemFailures'),
    region: where.region,
    ...(filterPatterns ? { filterPatterns } : {}),
    ...(onFailure !== undefined ? { onFailureDestination: String(onFailure) } : {}),
  };
}

/** On-failure destinations and dead-letter queues of stream consumers: SQS queues and SNS topics. */
export function isLocalDestinationArn(arn: string, isLocal: (arn: string) => boolean): boolean {
  return ['sqs', 'sns'].includes(arn.split(':')[2] ?? '') && isLocal(arn);
}

export class DynamoDbStreamEventSource {
  private readonly reader: DynamoDbStreamReader<LastInvocation>;

  constructor(
    readonly spec: DynamoDbStreamEventSourceSpec,
    private readonly dependencies: DynamoDbStreamEventSourceDependencies,
  ) {
    const toRecord = (record: StreamRecord) => toLambdaDynamoDbRecord(record, spec.streamArn, spec.region);
    const filter = recordFilter(spec.filterPatterns, toRecord);
    this.reader = new DynamoDbStreamReader<LastInvocation>(
      { ...spec, bisectBatchOnError: spec.bisectBatchOnFunctionError, ...(filter ? { filter } : {}) },
      {
        streams: dependencies.streams,
        onProblem: dependencies.onProblem,
        ...(dependencies.clock && { clock: dependencies.clock }),
        ...(dependencies.writes && { writes: dependencies.writes }),
        deliver: (records, _shardId, batch) => {
          dependencies.onIteratorAge?.(batch.iteratorAgeMillis);
          return this.deliver(records, toRecord);
        },
        discard: async (discarded) => {
          dependencies.onProblem(
            `event source ${spec.logicalId}: ${discarded.records.length} records given up (${discarded.condition})` +
              (spec.onFailureDestination ? `, described to ${spec.onFailureDestination}` : ''),
          );
          if (!spec.onFailureDestination) return;
          const record = lambdaOnFailureRecord({
            functionArn: spec.functionArn,
            condition: discarded.condition,
            approximateInvokeCount: discarded.deliveries,
            ...(discarded.lastFailure ? { lastInvocation: discarded.lastFailure } : {}),
            records: discarded.records,
            shardId: discarded.shardId,
            streamArn: discarded.streamArn,
            now: (dependencies.clock ?? WALL).date(),
          });
          await dependencies.sendToDestination(spec.onFailureDestination, JSON.stringify(record));
        },
      },
    );
  }

  private async deliver(
    records: readonly StreamRecord[],
    toRecord: (record: StreamRecord) => Record<string, unknown>,
  ): Promise<BatchOutcome<LastInvocation>> {
    const result = await this.dependencies.invoke(this.spec.functionReference, {
      Records: records.map(toRecord),
    });
    if (!result.ok) {
      return {
        ok: false,
        retryFrom: 0,
        bisectable: true,
        detail: { requestId: result.requestId, functionError: 'Unhandled' },
      };
    }
    if (!this.spec.reportBatchItemFailures) return { ok: true };
    const failed = firstFailedRecord(records, result.payload);
    if (failed === null) return { ok: true };
    if (typeof failed === 'object') {
      this.dependencies.onProblem(
        `event source ${this.spec.logicalId}: ${failed.invalid}; the whole batch will be retried`,
      );
      return { ok: false, retryFrom: 0, bisectable: true, detail: { requestId: result.requestId } };
    }
    return { ok: false, retryFrom: failed, bisectable: false, detail: { requestId: result.requestId } };
  }

  /** Resolves once the stream's shards are positioned (LATEST starts here). */
  start(): Promise<void> {
    return this.reader.start();
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }
}
