/**
 * How the local runtime turns a stack's DynamoDB stream consumers into running readers: every
 * AWS::Lambda::EventSourceMapping whose source is a DynamoDB stream, and every AWS::Pipes::Pipe.
 * Whatever cannot run is named (with the reason), never half-run.
 */
import { join } from 'node:path';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { StackResolver } from '../cloud-assembly';
import type { InvocationResult } from '../lambda-host';
import { DynamoDbStreamPipe, dynamoDbStreamPipeSpec, type PipeTargetDelivery } from './pipe';
import { DynamoDbStreamEventSource, dynamoDbStreamEventSourceSpec } from './stream-event-source';
import { isDynamoDbStreamArn, type LocalTableStreams } from './tables';

export interface StreamConsumerWiring {
  readonly region: string;
  readonly accountId: string;
  readonly streams: DynamoDBStreamsClient;
  readonly tableStreams: LocalTableStreams;
  /** The ARN of a function the runtime runs, by name or ARN. */
  readonly functionArn: (reference: string) => string | undefined;
  readonly invoke: (functionReference: string, event: unknown) => Promise<InvocationResult>;
  readonly targets: PipeTargetDelivery;
  /** Sends to an SQS queue or SNS topic by ARN (on-failure destinations, dead-letter queues). */
  readonly sendToDestination: (destinationArn: string, message: string) => Promise<void>;
  /** Whether a queue, topic, function, state machine or bus with this ARN runs locally. */
  readonly isLocalDestination: (arn: string) => boolean;
  readonly onProblem: (message: string) => void;
  /** Keep the consumers' checkpoints here (the runtime's data directory). @default - in memory */
  readonly checkpointDirectory?: string;
}

export type DynamoDbStreamConsumer = DynamoDbStreamEventSource | DynamoDbStreamPipe;

/** Whether an event source mapping reads a DynamoDB stream (such mappings are wired here). */
export function isDynamoDbStreamMapping(properties: Record<string, unknown>): boolean {
  return typeof properties.EventSourceArn === 'string' && isDynamoDbStreamArn(properties.EventSourceArn);
}

/** The stack's stream mappings and pipes, ready to start; the rest is named through `named`. */
export function dynamoDbStreamConsumers(
  resolver: StackResolver,
  named: (logicalId: string, type: string, reason: string) => void,
  wiring: StreamConsumerWiring,
): DynamoDbStreamConsumer[] {
  const consumers: DynamoDbStreamConsumer[] = [];
  const resources = Object.entries(resolver.stack.template.Resources ?? {}).filter(([logicalId]) =>
    resolver.isCreated(logicalId),
  );
  const checkpointFile = (logicalId: string) =>
    wiring.checkpointDirectory
      ? { checkpointFile: join(wiring.checkpointDirectory, `${resolver.stack.stackName}.${logicalId}.json`) }
      : {};
  for (const [logicalId, resource] of resources) {
    if (resource.Type === 'AWS::Lambda::EventSourceMapping') {
      const properties = resolver.properties(logicalId);
      if (properties.Enabled === false || !isDynamoDbStreamMapping(properties)) continue;
      const streamArn = String(properties.EventSourceArn);
      const functionArn = wiring.functionArn(String(properties.FunctionName));
      const spec = !wiring.tableStreams.isLocalStream(streamArn)
        ? `event source ${streamArn} is not the stream of a table of this app`
        : !functionArn
          ? `its function ${String(properties.FunctionName)} does not run locally`
          : dynamoDbStreamEventSourceSpec(logicalId, properties, {
              functionArn,
              region: wiring.region,
              isLocalDestination: wiring.isLocalDestination,
            });
      if (typeof spec === 'string') named(logicalId, resource.Type, spec);
      else consumers.push(new DynamoDbStreamEventSource({ ...spec, ...checkpointFile(logicalId) }, wiring));
    } else if (resource.Type === 'AWS::Pipes::Pipe') {
      const properties = resolver.properties(logicalId);
      if (properties.DesiredState === 'STOPPED') continue;
      const pipeName =
        typeof properties.Name === 'string' ? properties.Name : resolver.physicalName(logicalId);
      const spec = dynamoDbStreamPipeSpec(logicalId, properties, {
        pipeName,
        region: wiring.region,
        accountId: wiring.accountId,
        isLocalStream: (arn) => wiring.tableStreams.isLocalStream(arn),
        isLocalDestination: wiring.isLocalDestination,
      });
      if (typeof spec === 'string') named(logicalId, resource.Type, spec);
      else consumers.push(new DynamoDbStreamPipe({ ...spec, ...checkpointFile(logicalId) }, wiring));
    }
  }
  return consumers;
}
