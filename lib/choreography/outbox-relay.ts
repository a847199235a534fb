import { Duration } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  CHOREOGRAPHY_METRICS_NAMESPACE,
  DESTINATION_ENV_KEY,
  OutboxDestination,
  SEQUENCE_ATTRIBUTE,
  type ServiceName,
} from '../../lambdas/choreography/contracts';
import { addTableStreamSource, grantKeyViaService } from '../platform/data-table';
import { LambdaFunction } from '../platform/lambda-function';
import type { RelayTuning } from './config';
import type { ServiceTable } from './service-table';

/** Every place a relay can publish to; each relay is given (and granted) only its service's. */
export interface RelayTargets {
  readonly [OutboxDestination.RequestsTopic]: sns.ITopic;
  readonly [OutboxDestination.DeliveryQueue]: sqs.IQueue;
  readonly [OutboxDestination.DeliveryBus]: events.IEventBus;
  readonly [OutboxDestination.AlertBus]: events.IEventBus;
}

export interface OutboxRelayProps {
  /** The service whose change log is relayed (the relay's POWERTOOLS_SERVICE_NAME is `<service>-relay`). */
  readonly service: ServiceName;
  /** The service's table whose outbox the relay reads from its stream. */
  readonly table: ServiceTable;
  /** Where this service's events go (SERVICE_DESTINATIONS of the contracts); at least one. */
  readonly publishTo: readonly OutboxDestination[];
  /** Where the relay publishes each outbox destination (topic, bus, queues). */
  readonly targets: RelayTargets;
  /** Batches that still fail after the retries land here (record pointers, for an operator). */
  readonly deadLetterQueue: sqs.IQueue;
  /** Batch sizes, windows and retries of its event source, from the profile. */
  readonly tuning: RelayTuning;
}

/**
 * The transactional outbox relay of one service table: a function reading the table's stream
 * (only records whose new image holds change log entries), one shard batch at a time in order,
 * bisecting a failing batch, retrying a bounded number of times, then sending the batch's pointer
 * to the relay DLQ. It may publish only to its service's destinations.
 */
export class OutboxRelay extends Construct {
  readonly relay: LambdaFunction;

  constructor(scope: Construct, id: string, props: OutboxRelayProps) {
    super(scope, id);
    const destinations = [...new Set(props.publishTo)];
    if (destinations.length === 0 || destinations.length !== props.publishTo.length) {
      throw new Error(
        `OutboxRelay ${this.node.path}: publishTo must name one or more distinct destinations, got ${JSON.stringify(props.publishTo)}`,
      );
    }
    const { targets } = props;
    const environment: Record<string, string> = {};
    for (const destination of destinations) {
      environment[DESTINATION_ENV_KEY[destination]] = {
        [OutboxDestination.RequestsTopic]: () => targets[OutboxDestination.RequestsTopic].topicArn,
        [OutboxDestination.DeliveryQueue]: () => targets[OutboxDestination.DeliveryQueue].queueUrl,
        [OutboxDestination.DeliveryBus]: () => targets[OutboxDestination.DeliveryBus].eventBusName,
        [OutboxDestination.AlertBus]: () => targets[OutboxDestination.AlertBus].eventBusName,
      }[destination]();
    }
    this.relay = new LambdaFunction(this, 'Relay', {
      handler: 'choreography/handlers/outbox-relay',
      metricsNamespace: CHOREOGRAPHY_METRICS_NAMESPACE,
      description: `Outbox relay of the ${props.service} table: publishes its change log to ${destinations.join(', ')}`,
      serviceName: `${props.service}-relay`,
      timeout: Duration.seconds(props.tuning.timeoutSeconds),
      environment,
    });
    const fn = this.relay.function;
    for (const destination of destinations) {
      if (destination === OutboxDestination.RequestsTopic) {
        grantTopicPublish(targets[destination], fn);
      }
      if (destination === OutboxDestination.DeliveryQueue) targets[destination].grantSendMessages(fn);
      if (destination === OutboxDestination.DeliveryBus) targets[destination].grantPutEventsTo(fn);
      if (destination === OutboxDestination.AlertBus) targets[destination].grantPutEventsTo(fn);
    }
    addTableStreamSource(fn, props.table.table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: props.tuning.batchSize,
      bisectBatchOnError: true,
      retryAttempts: props.tuning.retryAttempts,
      maxRecordAge: Duration.seconds(props.tuning.maxRecordAgeSeconds),
      parallelizationFactor: 1,
      reportBatchItemFailures: true,
      onFailure: new eventSources.SqsDlq(props.deadLetterQueue),
      filters: [lambda.FilterCriteria.filter(OUTBOX_STREAM_FILTER)],
    });
  }
}

/**
 * Stream records of items that carry a change log: their new image has the sequence number (exists
 * matches leaf values only, and the change log itself is a list of maps). Processed-message markers
 * and the drone items are left out; the relay publishes only entries the old image did not hold.
 */
export const OUTBOX_STREAM_FILTER = {
  dynamodb: { NewImage: { [SEQUENCE_ATTRIBUTE]: { N: lambda.FilterRule.exists() } } },
};

/**
 * Publish on the topic and, if it is encrypted, what SNS needs of the publisher on its key
 * (kms:GenerateDataKey and kms:Decrypt) only through SNS (`kms:ViaService`). `grantPublish` would
 * grant `kms:GenerateDataKey*` usable directly against KMS.
 */
function grantTopicPublish(topic: sns.ITopic, grantee: iam.IGrantable): void {
  iam.Grant.addToPrincipal({ grantee, actions: ['sns:Publish'], resourceArns: [topic.topicArn] });
  if (topic.masterKey) {
    grantKeyViaService(topic.masterKey, grantee, 'sns', ['kms:GenerateDataKey', 'kms:Decrypt']);
  }
}
