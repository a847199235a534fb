/**
 * Consumers of DynamoDB streams: Lambda event source mappings whose source is a table's stream (an
 * event source kind of ./event-source-mappings.ts) and EventBridge Pipes from a stream
 * (AWS::Pipes::Pipe). Both run on the same reading core (../dynamodb/stream-reader.ts); whatever a
 * spec cannot run is named with the reason, never half-run.
 */
import { join } from 'node:path';
import {
  DynamoDbStreamEventSource,
  DynamoDbStreamPipe,
  dynamoDbStreamEventSourceSpec,
  dynamoDbStreamPipeSpec,
  isDynamoDbStreamArn,
  type PipeTargetDelivery,
} from '../dynamodb';
import { roleSessionPrincipal } from '../iam/principals';
import type { Provisioner, RuntimeContext, StackContext } from '../provisioning';
import type { DynamoDbProvisioner } from './dynamodb';
import type { EventSourceKind } from './event-source-mappings';
import type { EventBridgeProvisioner } from './eventbridge';
import type { LambdaProvisioner } from './lambda';
import type { SnsProvisioner } from './sns';
import type { SqsProvisioner } from './sqs';

const PIPE = 'AWS::Pipes::Pipe';

/** What stream consumers reach besides the stream: destinations and targets of this app. */
export interface StreamConsumerNeighbours {
  readonly dynamodb: DynamoDbProvisioner;
  readonly sqs: SqsProvisioner;
  readonly sns: SnsProvisioner;
  readonly lambda: LambdaProvisioner;
  readonly eventBridge: EventBridgeProvisioner;
}

/** Whether a queue, topic, function, state machine or bus with this ARN runs locally. */
function isLocalDestination(arn: string, neighbours: StreamConsumerNeighbours, context: RuntimeContext) {
  switch (arn.split(':')[2]) {
    case 'sqs':
      return neighbours.sqs.hasQueue(arn);
    case 'sns':
      return neighbours.sns.hasTopic(arn);
    case 'lambda':
      return neighbours.lambda.host.find(arn) !== undefined;
    case 'states':
      return context.deliveries.canDeliver(arn);
    case 'events':
      return true;
    default:
      return false;
  }
}

/** On-failure destinations and dead-letter queues: an SQS queue or SNS topic by ARN. */
function sendToDestination(context: RuntimeContext) {
  return (destinationArn: string, message: string) => context.deliveries.deliver(destinationArn, message);
}

/** A consumer's checkpoints survive a restart with the runtime's data directory. */
function checkpointFile(context: RuntimeContext, stackName: string, logicalId: string) {
  const dataDir = context.options.dataDir;
  return dataDir
    ? { checkpointFile: join(dataDir, 'stream-checkpoints', `${stackName}.${logicalId}.json`) }
    : {};
}

/** Table streams of the app, read as Lambda's stream poller does (../dynamodb/stream-event-source.ts). */
export function dynamoDbStreams(neighbours: StreamConsumerNeighbours): EventSourceKind {
  const { dynamodb, lambda } = neighbours;
  return {
    description: 'the stream of a DynamoDB table',
    reads: (sourceArn) => isDynamoDbStreamArn(sourceArn) && dynamodb.tableStreams.isLocalStream(sourceArn),
    create: ({ logicalId, stackName, properties, consumer }, context) => {
      const spec = dynamoDbStreamEventSourceSpec(logicalId, properties, {
        functionArn: consumer.functionArn,
        region: context.region,
        isLocalDestination: (arn) => isLocalDestination(arn, neighbours, context),
      });
      if (typeof spec === 'string') return spec;
      return new DynamoDbStreamEventSource(
        { ...spec, ...checkpointFile(context, stackName, logicalId) },
        {
          streams: dynamodb.streams,
          invoke: (reference, event) => lambda.host.invoke(reference, event),
          sendToDestination: sendToDestination(context),
          onProblem: (message) => context.problem(message),
        },
      );
    },
    refusal: ({ sourceArn, consumer }, context) => {
      if (!consumer.roleArn) return undefined;
      const principal = roleSessionPrincipal(consumer.roleArn, consumer.functionName);
      const verdict = dynamodb.authorizeStreamRead(context, principal, sourceArn);
      // Lambda's words (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html#services-ddb-eventsourcemapping).
      return verdict.allowed
        ? undefined
        : `InvalidParameterValueException: Cannot access stream ${sourceArn}. Please ensure the role can perform the GetRecords, GetShardIterator, DescribeStream, and ListStreams Actions on your stream in IAM. (${verdict.message})`;
    },
  };
}

/** EventBridge Pipes whose source is a table stream of the app (../dynamodb/pipe.ts). */
export class PipesProvisioner implements Provisioner {
  readonly name = 'EventBridge Pipes';
  readonly resourceTypes = { runs: [PIPE] };
  private readonly pipes: DynamoDbStreamPipe[] = [];

  constructor(private readonly neighbours: StreamConsumerNeighbours) {}

  async wire(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(PIPE)) {
      const properties = context.resolver.properties(logicalId);
      if (properties.DesiredState === 'STOPPED') continue;
      const pipeName =
        typeof properties.Name === 'string' ? properties.Name : context.resolver.physicalName(logicalId);
      const spec = dynamoDbStreamPipeSpec(logicalId, properties, {
        pipeName,
        region: context.region,
        accountId: context.accountId,
        isLocalStream: (arn) => this.neighbours.dynamodb.tableStreams.isLocalStream(arn),
        isLocalDestination: (arn) => isLocalDestination(arn, this.neighbours, context),
      });
      if (typeof spec === 'string') {
        context.named(logicalId, PIPE, spec);
        continue;
      }
      this.pipes.push(
        new DynamoDbStreamPipe(
          { ...spec, ...checkpointFile(context, context.stack.stackName, logicalId) },
          {
            streams: this.neighbours.dynamodb.streams,
            targets: this.targets(context),
            sendToDestination: sendToDestination(context),
            onProblem: (message) => context.problem(message),
          },
        ),
      );
    }
  }

  async start(context: RuntimeContext): Promise<void> {
    for (const pipe of this.pipes) context.stopWith(pipe, 'producer');
    await Promise.all(this.pipes.map((pipe) => pipe.start()));
  }

  private targets(context: RuntimeContext): PipeTargetDelivery {
    const { lambda, eventBridge } = this.neighbours;
    return {
      sendMessage: (queueArn, body, options) => context.deliveries.deliver(queueArn, body, options),
      publish: (topicArn, message) => context.deliveries.deliver(topicArn, message),
      putEvents: (entries) => eventBridge.putEvents(entries),
      invoke: (functionArn, event) => lambda.host.invoke(functionArn, event),
      invokeAsync: (functionArn, event) => lambda.host.invokeAsync(functionArn, event),
      startExecution: (stateMachineArn, input) => context.deliveries.deliver(stateMachineArn, input),
    };
  }
}
