import { Duration, Stack } from 'aws-cdk-lib';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  CHOREOGRAPHY_METRICS_NAMESPACE,
  ChoreographyEnvKey,
  type RemediationSettings,
  ServiceName,
} from '../../lambdas/choreography/contracts';
import { consumeFifoQueue } from '../platform/fifo-work-queue';
import { LambdaFunction } from '../platform/lambda-function';
import { type ConsumerTuning, consumerTimeoutSeconds } from './config';
import type { ServiceTable } from './service-table';

export interface RemediationProps {
  /** The remediation service's table (decisions, occurrences, dead-letter markers, change log). */
  readonly table: ServiceTable;
  /** The DynamoDB actions remediation may take on each service's table (its grant, least privilege). */
  readonly tableActions: readonly string[];
  /** The dead-letter queue of each consumer service (FIFO); remediation consumes them all. */
  readonly deadLetterQueues: Readonly<Partial<Record<ServiceName, sqs.IQueue>>>;
  /** Remediation's own dead-letter queue (FIFO, terminal): what it cannot decide on stays there. */
  readonly terminalDeadLetterQueue: sqs.IQueue;
  /** The settings of this part, from the deployment's profile. */
  readonly settings: RemediationSettings;
  /** Batch sizes, windows and retries of its event source, from the profile. */
  readonly tuning: ConsumerTuning;
}

/**
 * The remediation consumer of every service's dead-letter queue: one function, one event source per
 * dead-letter queue (partial batch failures, bounded concurrency). It reads and defers messages on
 * those queues (ChangeMessageVisibility) and records its decisions in its own table, whose change
 * log its relay publishes (requests topic, alert bus).
 */
export class Remediation extends Construct {
  readonly remediation: LambdaFunction;

  constructor(scope: Construct, id: string, props: RemediationProps) {
    super(scope, id);
    const sources = Object.entries(props.deadLetterQueues) as [ServiceName, sqs.IQueue][];
    const notFifo = [props.terminalDeadLetterQueue, ...sources.map(([, queue]) => queue)].some(
      (queue) => queue.fifo !== true,
    );
    if (sources.length === 0 || notFifo) {
      throw new Error(
        `Remediation ${this.node.path}: needs one or more dead-letter queues, and they and the terminal dead-letter queue must be FIFO`,
      );
    }
    const urls = Object.fromEntries(sources.map(([service, queue]) => [service, queue.queueUrl]));
    this.remediation = new LambdaFunction(this, 'Remediation', {
      handler: 'choreography/handlers/remediation',
      metricsNamespace: CHOREOGRAPHY_METRICS_NAMESPACE,
      description: `Remediation of the dead letters of ${sources.map(([service]) => service).join(', ')}: retry, pivot, compensate, give up or alert`,
      serviceName: ServiceName.Remediation,
      timeout: Duration.seconds(consumerTimeoutSeconds(props.tuning)),
      environment: {
        [ChoreographyEnvKey.TableName]: props.table.tableName,
        [ChoreographyEnvKey.DeadLetterQueueUrl]: props.terminalDeadLetterQueue.queueUrl,
        [ChoreographyEnvKey.DeadLetterQueueUrls]: Stack.of(this).toJsonString(urls),
        [ChoreographyEnvKey.Settings]: JSON.stringify(props.settings),
      },
    });
    const fn = this.remediation.function;
    props.table.grant(fn, ...props.tableActions);
    props.terminalDeadLetterQueue.grantSendMessages(fn);
    for (const [, queue] of sources) {
      consumeFifoQueue(`Remediation ${this.node.path}`, queue, fn, props.tuning);
    }
  }
}
