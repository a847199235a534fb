/**
 * The JSON shapes that leave a DynamoDB stream consumer, as AWS writes them: Lambda's DynamoDB event
 * record (what a function or a pipe target receives), and the failure records that Lambda's
 * on-failure destinations and EventBridge Pipes' dead-letter queues receive (stream position only,
 * never the data). Pure.
 */
import type { AttributeValue, _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';

/** Why records were given up on (Lambda's and Pipes' `condition`). */
export type DiscardCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/** An attribute value as JSON: the SDK's binary values become base64, as on the wire. */
export function attributeValueToJson(value: AttributeValue): Record<string, unknown> {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((item) => Buffer.from(item).toString('base64')) };
  if (value.M !== undefined) return { M: attributeMapToJson(value.M) };
  if (value.L !== undefined) return { L: value.L.map(attributeValueToJson) };
  const { $unknown: _unknown, ...rest } = value as AttributeValue & { $unknown?: unknown };
  return rest as Record<string, unknown>;
}

export function attributeMapToJson(
  map: Record<string, AttributeValue> | undefined,
): Record<string, unknown> | undefined {
  if (map === undefined) return undefined;
  return Object.fromEntries(Object.entries(map).map(([name, value]) => [name, attributeValueToJson(value)]));
}

/** Whole seconds since the epoch (Lambda's ApproximateCreationDateTime is a number). */
function epochSeconds(date: Date | undefined): number | undefined {
  return date === undefined ? undefined : Math.floor(date.getTime() / 1000);
}

/**
 * Lambda's DynamoDB event record. `region` is the runtime's region: DynamoDB Local writes its own
 * pseudo-region `ddblocal` in records, which no AWS consumer would see.
 */
export function toLambdaDynamoDbRecord(
  record: StreamRecord,
  eventSourceArn: string,
  region: string,
): Record<string, unknown> {
  const change = record.dynamodb ?? {};
  const dynamodb: Record<string, unknown> = {
    ApproximateCreationDateTime: epochSeconds(change.ApproximateCreationDateTime),
    Keys: attributeMapToJson(change.Keys) ?? {},
    NewImage: attributeMapToJson(change.NewImage),
    OldImage: attributeMapToJson(change.OldImage),
    SequenceNumber: change.SequenceNumber,
    SizeBytes: change.SizeBytes,
    StreamViewType: change.StreamViewType,
  };
  for (const key of Object.keys(dynamodb)) if (dynamodb[key] === undefined) delete dynamodb[key];
  // DynamoDB Local writes its time-to-live deletions with an event name no SDK knows and without
  // the identity AWS gives them: they are REMOVEs by the DynamoDB service.
  const expired = !['INSERT', 'MODIFY', 'REMOVE'].includes(String(record.eventName)) && !change.NewImage;
  const userIdentity = expired
    ? { type: 'Service', principalId: 'dynamodb.amazonaws.com' }
    : record.userIdentity
      ? { type: record.userIdentity.Type, principalId: record.userIdentity.PrincipalId }
      : undefined;
  return {
    eventID: record.eventID,
    eventName: expired ? 'REMOVE' : record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb,
    eventSourceARN: eventSourceArn,
    ...(userIdentity ? { userIdentity } : {}),
  };
}

/** ISO time without milliseconds, as in AWS's DDBStreamBatchInfo. */
function isoSeconds(date: Date | undefined): string | undefined {
  return date === undefined ? undefined : `${date.toISOString().slice(0, 19)}Z`;
}

/** Where the given-up records are in the stream (what a consumer needs to read them again). */
export function streamBatchInfo(
  records: readonly StreamRecord[],
  shardId: string,
  streamArn: string,
): Record<string, unknown> {
  const first = records[0]?.dynamodb;
  const last = records.at(-1)?.dynamodb;
  return {
    shardId,
    startSequenceNumber: first?.SequenceNumber,
    endSequenceNumber: last?.SequenceNumber,
    approximateArrivalOfFirstRecord: isoSeconds(first?.ApproximateCreationDateTime),
    approximateArrivalOfLastRecord: isoSeconds(last?.ApproximateCreationDateTime),
    batchSize: records.length,
    streamArn,
  };
}

/** What the last invocation of a given-up batch answered (Lambda's responseContext). */
export interface LastInvocation {
  readonly requestId: string;
  /** The function error type ('Unhandled'), absent when the function answered a partial failure. */
  readonly functionError?: string;
}

/** The record Lambda sends to an event source mapping's on-failure destination (SQS or SNS). */
export function lambdaOnFailureRecord(options: {
  readonly functionArn: string;
  readonly condition: DiscardCondition;
  readonly approximateInvokeCount: number;
  readonly lastInvocation?: LastInvocation;
  readonly records: readonly StreamRecord[];
  readonly shardId: string;
  readonly streamArn: string;
  readonly now: Date;
}): Record<string, unknown> {
  return {
    requestContext: {
      requestId: options.lastInvocation?.requestId ?? '',
      functionArn: options.functionArn,
      condition: options.condition,
      approximateInvokeCount: options.approximateInvokeCount,
    },
    responseContext: {
      statusCode: 200,
      executedVersion: '$LATEST',
      ...(options.lastInvocation?.functionError
        ? { functionError: options.lastInvocation.functionError }
        : {}),
    },
    version: '1.0',
    timestamp: options.now.toISOString(),
    DDBStreamBatchInfo: streamBatchInfo(options.records, options.shardId, options.streamArn),
  };
}

/** The record EventBridge Pipes sends to a stream source's dead-letter queue (SQS or SNS). */
export function pipeDeadLetterRecord(options: {
  readonly pipeArn: string;
  readonly condition: DiscardCondition;
  readonly records: readonly StreamRecord[];
  readonly shardId: string;
  readonly streamArn: string;
  readonly now: Date;
}): Record<string, unknown> {
  return {
    context: { partnerResourceArn: options.pipeArn, condition: options.condition },
    version: '1.0',
    timestamp: `${options.now.toISOString().slice(0, 19)}Z`,
    DDBStreamBatchInfo: streamBatchInfo(options.records, options.shardId, options.streamArn),
  };
}
