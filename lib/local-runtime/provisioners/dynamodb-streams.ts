/**
 * Consumers of DynamoDB streams: Lambda event source mappings whose source is a table's stream (an
 * event source kind of ./event-source-mappings.ts) and EventBridge Pipes from a stream
 * (AWS::Pipes::Pipe). Both run on the same reading core (../dynamodb/stream-reader.ts); whatever a
 * spec cannot run is named with the reason, never half-run. Each reads as its role, through the
 * DynamoDB gateway (every Streams request authorized), and sends its failures as that role.
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
import { busArn } from '../eventbridge/event-buses';
import type { Verdict } from '../iam/authorizer';
import { roleSessionPrincipal } from '../iam/principals';
import { LambdaAccessDeniedError } from '../lambda/errors';
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

/**
 * On-failure destinations and dead-letter queues (an SQS queue or SNS topic by ARN), sent as the
 * consumer's role, as on AWS: Lambda sends a mapping's failure record with the function's execution
 * role, a pipe its dead letters with its own
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html#invocation-async-destinations-permissions).
 */
function sendToDestination(context: RuntimeContext, roleArn: string | undefined) {
  const deliveredAs = roleArn ? ({ kind: 'role', roleArn } as const) : undefined;
  return (destinationArn: string, message: string) =>
    context.deliveries.deliver(destinationArn, message, deliveredAs ? { deliveredAs } : {});
}

/**
 * The Streams client a consumer reads with: through the DynamoDB gateway as a session of its role,
 * so that each request is authorized (as the root without a role, which only a test makes).
 */
function streamsOf(
  dynamodb: DynamoDbProvisioner,
  context: RuntimeContext,
  roleArn: string | undefined,
  sessionName: string,
) {
  return dynamodb.streamsClientFor(
    roleArn
      ? context.iam.credentials.roleSession(roleArn, sessionName)
      : context.iam.credentials.rootCredentials,
    sessionName,
  );
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
          streams: streamsOf(dynamodb, context, consumer.roleArn, consumer.functionName),
          invoke: (reference, event) => lambda.host.invoke(reference, event),
          sendToDestination: sendToDestination(context, consumer.roleArn),
          onProblem: (message) => context.problem(message),
          clock: context.clock,
          writes: dynamodb.tableWrites,
          onIteratorAge: (iteratorAgeMillis) => lambda.iteratorAge(consumer.functionName, iteratorAgeMillis),
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
  /** Each pipe's role and source, checked once IAM has read every stack. */
  private readonly roles: Array<{
    readonly where: string;
    readonly roleArn: string;
    readonly streamArn: string;
  }> = [];

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
      const roleArn = String(properties.RoleArn ?? '');
      this.roles.push({
        where: `${context.stack.stackName}/${logicalId}`,
        roleArn,
        streamArn: spec.streamArn,
      });
      this.pipes.push(
        new DynamoDbStreamPipe(
          { ...spec, ...checkpointFile(context, context.stack.stackName, logicalId) },
          {
            streams: streamsOf(this.neighbours.dynamodb, context, roleArn || undefined, 'pipe'),
            targets: this.targets(context, roleArn),
            sendToDestination: sendToDestination(context, roleArn || undefined),
            onProblem: (message) => context.problem(message),
            clock: context.clock,
            writes: this.neighbours.dynamodb.tableWrites,
          },
        ),
      );
    }
  }

  /**
   * A pipe reads its source and calls its target as its role: one whose role may not read the
   * stream fails the start (on AWS the pipe fails to start, its StateReason naming the permission,
   * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-permissions.html), and each
   * target call is authorized as the role (a refused one fails like any failed target call).
   */
  async start(context: RuntimeContext): Promise<void> {
    const refused = this.roles.flatMap(({ where, roleArn, streamArn }) => {
      const verdict = this.neighbours.dynamodb.authorizeStreamRead(
        context,
        roleSessionPrincipal(roleArn, 'pipe'),
        streamArn,
      );
      return verdict.allowed
        ? []
        : [`${where}: the pipe's role may not read ${streamArn} (${verdict.message})`];
    });
    if (refused.length > 0) throw new Error(refused.join('\n'));
    for (const pipe of this.pipes) context.stopWith(pipe, 'producer');
    await Promise.all(this.pipes.map((pipe) => pipe.start()));
  }

  private targets(context: RuntimeContext, roleArn: string): PipeTargetDelivery {
    const { lambda, eventBridge } = this.neighbours;
    const deliveredAs = { kind: 'role', roleArn } as const;
    const principal = roleSessionPrincipal(roleArn, 'pipe');
    const authorized = (verdict: Verdict) => {
      if (!verdict.allowed) throw new LambdaAccessDeniedError(verdict.message);
    };
    return {
      sendMessage: (queueArn, body, options) =>
        context.deliveries.deliver(queueArn, body, { ...options, deliveredAs }),
      publish: (topicArn, message) => context.deliveries.deliver(topicArn, message, { deliveredAs }),
      putEvents: (entries) => {
        const buses = new Set(
          entries.map((entry) => busArn(context.region, context.accountId, entry.EventBusName)),
        );
        authorized(
          context.iam.authorizer.authorizeAll(
            [...buses].map((resource) => ({ principal, action: 'events:PutEvents', resource })),
          ),
        );
        return eventBridge.putEvents(entries);
      },
      invoke: (functionArn, event) => {
        authorized(lambda.authorizeInvoke(principal, functionArn));
        return lambda.host.invoke(functionArn, event);
      },
      invokeAsync: (functionArn, event) => {
        authorized(lambda.authorizeInvoke(principal, functionArn));
        lambda.host.invokeAsync(functionArn, event);
      },
      startExecution: (stateMachineArn, input) =>
        context.deliveries.deliver(stateMachineArn, input, { deliveredAs }),
    };
  }
}
