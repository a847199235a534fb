import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import {
  CHOREOGRAPHY_METRICS_NAMESPACE,
  ChoreographyEnvKey,
  type ConsumerSettings,
  type ServiceName,
} from '../../lambdas/choreography/contracts';
import { type DeadLetterConsumption, FifoWorkQueue } from '../platform/fifo-work-queue';
import { LambdaFunction } from '../platform/lambda-function';
import { type ConsumerTuning, consumerTimeoutSeconds } from './config';
import type { ServiceTable } from './service-table';

export interface ServiceConsumerProps {
  /** The service this consumer runs (its name names its queue, function and table). */
  readonly service: ServiceName;
  /** Handler module under lambdas/ (e.g. `choreography/handlers/package-service`). */
  readonly handler: string;
  /** What it is, for the console and the template. */
  readonly description: string;
  /** The service's own table. */
  readonly table: ServiceTable;
  /** Item actions on the table (table only, never an index). */
  readonly tableActions: readonly string[];
  /** The service's settings (SERVICE_SETTINGS); maxReceiveAttempts sets the queue's redrive. */
  readonly settings: ConsumerSettings;
  /** Batch sizes, windows and retries of its event source, from the profile. */
  readonly tuning: ConsumerTuning;
  /** How long its queue keeps a message not yet consumed. */
  readonly messageRetention: Duration;
  /** Where the service's dead letters go next (the remediation consumer and its terminal DLQ). */
  readonly deadLetterConsumption: DeadLetterConsumption;
  /**
   * The queue takes senders that set no deduplication id (EventBridge targets).
   * @default false
   */
  readonly contentBasedDeduplication?: boolean;
}

/**
 * One service of the choreography as a queue consumer: its FIFO queue and FIFO dead-letter queue
 * (redrive after settings.maxReceiveAttempts + 1 receives: the handler dead-letters with a reason on
 * its last attempt, the redrive catches crashes and timeouts), and its function, which may use its
 * own table and send to its own dead-letter queue.
 */
export class ServiceConsumer extends Construct {
  readonly work: FifoWorkQueue;
  readonly consumer: LambdaFunction;

  constructor(scope: Construct, id: string, props: ServiceConsumerProps) {
    super(scope, id);
    const timeout = Duration.seconds(consumerTimeoutSeconds(props.tuning));
    this.work = new FifoWorkQueue(this, 'Work', {
      consumerTimeout: timeout,
      maxReceiveCount: props.settings.maxReceiveAttempts + 1,
      retentionPeriod: props.messageRetention,
      contentBasedDeduplication: props.contentBasedDeduplication ?? false,
      deadLetterConsumption: props.deadLetterConsumption,
    });
    this.consumer = new LambdaFunction(this, 'Consumer', {
      handler: props.handler,
      metricsNamespace: CHOREOGRAPHY_METRICS_NAMESPACE,
      description: props.description,
      serviceName: props.service,
      timeout,
      environment: {
        [ChoreographyEnvKey.TableName]: props.table.tableName,
        [ChoreographyEnvKey.DeadLetterQueueUrl]: this.work.deadLetterQueue.queueUrl,
        [ChoreographyEnvKey.Settings]: JSON.stringify(props.settings),
      },
    });
    const fn = this.consumer.function;
    props.table.grant(fn, ...props.tableActions);
    this.work.deadLetterQueue.grantSendMessages(fn);
    this.work.consumeWith(fn, props.tuning);
  }

  get queue() {
    return this.work.queue;
  }

  get deadLetterQueue() {
    return this.work.deadLetterQueue;
  }
}
