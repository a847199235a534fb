/**
 * DynamoDB in the local runtime: DynamoDB Local (AWS's own emulator) and the consumers of its
 * streams (Lambda event source mappings and EventBridge Pipes).
 */
export {
  type DynamoDbLocalOptions,
  dynamoDbLocalDistribution,
  findJava,
  JAVA_DEBIAN_PACKAGE,
  JavaNotFoundError,
  type RunningDynamoDbLocal,
  startDynamoDbLocal,
} from './dynamodb-local';
export {
  DynamoDbStreamPipe,
  type DynamoDbStreamPipeSpec,
  dynamoDbStreamPipeSpec,
  type PipeTarget,
  type PipeTargetDelivery,
} from './pipe';
export {
  DynamoDbStreamEventSource,
  type DynamoDbStreamEventSourceSpec,
  dynamoDbStreamEventSourceSpec,
  firstFailedRecord,
} from './stream-event-source';
export {
  type BatchOutcome,
  DynamoDbStreamReader,
  type StreamReaderSpec,
  type TableWrites,
} from './stream-reader';
export { lambdaOnFailureRecord, pipeDeadLetterRecord, toLambdaDynamoDbRecord } from './stream-records';
export {
  applyTimeToLive,
  isDynamoDbStreamArn,
  LocalTableStreams,
  streamSpecification,
  tableOfStreamArn,
} from './tables';
