/**
 * Lambda event source mappings (AWS::Lambda::EventSourceMapping): each mapping is run by the event
 * source kind that reads its source ARN (SQS queues here, DynamoDB streams in ./dynamodb-streams.ts),
 * once for the function and once for each of its fault-hook copies.
 */
import { replicaSuffix } from '../fault-hooks';
import { roleSessionPrincipal } from '../iam/principals';
import type { LambdaFunctionSpec } from '../lambda/host';
import { SqsEventSource } from '../lambda/sqs-event-source';
import type { Provisioner, RuntimeContext, StackContext, Stoppable } from '../provisioning';
import type { LambdaProvisioner } from './lambda';
import type { SqsProvisioner } from './sqs';
import { asNumber, asRecord, asString } from './values';

const MAPPING = 'AWS::Lambda::EventSourceMapping';

/** One mapping, for one consumer (the function itself, or one of its copies). */
export interface EventSourceMapping {
  /** The mapping's logical id (a copy's mapping carries the copy's suffix), in `stackName`. */
  readonly logicalId: string;
  readonly stackName: string;
  readonly sourceArn: string;
  /** The mapping's resolved properties (BatchSize, FunctionResponseTypes, ScalingConfig...). */
  readonly properties: Readonly<Record<string, unknown>>;
  readonly consumer: LambdaFunctionSpec;
}

export interface EventSource extends Stoppable {
  /** Resolves once the source is positioned (a stream at LATEST reads from here on). */
  start(): void | Promise<void>;
}

/** A kind of source Lambda polls for its functions. */
export interface EventSourceKind {
  /** What it reads, for the reason a mapping it cannot read is named with (e.g. 'an SQS queue'). */
  readonly description: string;
  /** Whether the source ARN is one of this kind that the app declares. */
  reads(sourceArn: string): boolean;
  /** The running source, or the reason the mapping is not run (named at start). */
  create(mapping: EventSourceMapping, context: RuntimeContext): EventSource | string;
  /**
   * Why Lambda would refuse to create the mapping: its function's role may not read the source
   * (CreateEventSourceMapping's InvalidParameterValueException). Asked at start, once IAM has read
   * every stack. @default - never refused
   */
  refusal?(mapping: EventSourceMapping, context: RuntimeContext): string | undefined;
}

export class EventSourceMappingProvisioner implements Provisioner {
  readonly name = 'Lambda event source mappings';
  readonly resourceTypes = { runs: [MAPPING] };
  private readonly sources: EventSource[] = [];
  private readonly created: Array<{ readonly kind: EventSourceKind; readonly mapping: EventSourceMapping }> =
    [];

  constructor(
    private readonly lambda: LambdaProvisioner,
    private readonly kinds: readonly EventSourceKind[],
  ) {}

  async wire(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(MAPPING)) {
      const properties = context.resolver.properties(logicalId);
      if (properties.Enabled === false) continue;
      const sourceArn = asString(properties.EventSourceArn) ?? '';
      const kind = this.kinds.find((candidate) => candidate.reads(sourceArn));
      if (!kind) {
        const kinds = this.kinds.map((candidate) => candidate.description).join(' or ');
        context.named(
          logicalId,
          MAPPING,
          `event source ${sourceArn || '(none)'} is not ${kinds} of this app`,
        );
        continue;
      }
      const functionReference = String(properties.FunctionName);
      const fn = this.lambda.host.find(functionReference);
      if (!fn) {
        context.named(logicalId, MAPPING, `its function ${functionReference} does not run locally`);
        continue;
      }
      for (const [replica, consumer] of [fn, ...this.lambda.replicasOf(fn.functionArn)].entries()) {
        const mappingLogicalId = replica === 0 ? logicalId : `${logicalId}${replicaSuffix(replica)}`;
        const mapping = {
          logicalId: mappingLogicalId,
          stackName: context.stack.stackName,
          sourceArn,
          properties,
          consumer,
        };
        const source = kind.create(mapping, context);
        if (typeof source === 'string') context.named(mappingLogicalId, MAPPING, source);
        else {
          this.sources.push(source);
          this.created.push({ kind, mapping });
        }
      }
    }
  }

  async start(context: RuntimeContext): Promise<void> {
    // What Lambda refuses at creation fails the start, as it fails the deployment on AWS.
    const refusals = this.created.flatMap(({ kind, mapping }) => {
      const refusal = kind.refusal?.(mapping, context);
      return refusal === undefined ? [] : [`${mapping.stackName}/${mapping.logicalId}: ${refusal}`];
    });
    if (refusals.length > 0) throw new Error(refusals.join('\n'));
    // Started together, and awaited: the runtime reports ready only once every source is positioned.
    for (const source of this.sources) context.stopWith(source, 'producer');
    await Promise.all(this.sources.map((source) => source.start()));
  }
}

/** SQS queues of the app, polled as Lambda does (../lambda/sqs-event-source.ts). */
export function sqsQueues(sqs: SqsProvisioner, lambda: LambdaProvisioner): EventSourceKind {
  return {
    description: 'an SQS queue',
    reads: (sourceArn) => sourceArn.startsWith('arn:aws:sqs:') && sqs.hasQueue(sourceArn),
    create: ({ logicalId, sourceArn, properties, consumer }, context) => {
      const responseTypes = Array.isArray(properties.FunctionResponseTypes)
        ? properties.FunctionResponseTypes
        : [];
      const scaling = asNumber(asRecord(properties.ScalingConfig).MaximumConcurrency);
      const duplicateDelivery = context.options.faults?.duplicateDelivery;
      return new SqsEventSource(
        {
          logicalId,
          queueUrl: sqs.queueUrl(sourceArn),
          queueArn: sourceArn,
          functionReference: consumer.functionArn,
          batchSize: asNumber(properties.BatchSize) ?? 10,
          maximumBatchingWindowSeconds: asNumber(properties.MaximumBatchingWindowInSeconds) ?? 0,
          reportBatchItemFailures: responseTypes.includes('ReportBatchItemFailures'),
          concurrency: Math.min(consumer.maxConcurrency, scaling ?? consumer.maxConcurrency),
          region: context.region,
        },
        {
          // Lambda polls as the function's execution role.
          sqs: consumer.roleArn
            ? sqs.clientFor(context.iam.credentials.roleSession(consumer.roleArn, consumer.functionName))
            : sqs.client,
          invoke: (reference, event) => lambda.host.invoke(reference, event),
          onProblem: (message) => context.problem(message),
          clock: context.clock,
          ...(duplicateDelivery
            ? {
                duplicateDelivery: (message) =>
                  duplicateDelivery({
                    mappingLogicalId: logicalId,
                    functionLogicalId: consumer.logicalId,
                    message,
                  }),
              }
            : {}),
        },
      );
    },
    // What Lambda checks when the mapping is created: its execution role must receive, delete and
    // read the attributes of the queue (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html#events-sqs-permissions).
    refusal: ({ sourceArn, consumer }) => {
      if (!consumer.roleArn) return undefined;
      const principal = roleSessionPrincipal(consumer.roleArn, consumer.functionName);
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) {
        const verdict = sqs.authorizeQueue(principal, action, sourceArn, sqs.queueSecurity(sourceArn));
        if (!verdict.allowed) {
          return `InvalidParameterValueException: The provided execution role does not have permissions to call ${action.slice(4)} on SQS (${verdict.message})`;
        }
      }
      return undefined;
    },
  };
}
