import { Duration } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  clientStatusFor,
  EnvKey,
  METRICS_NAMESPACE,
  ProcessState,
  RoleServiceName,
  StateAttr,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { addTableStreamSource } from '../platform/data-table';
import { LambdaFunction } from '../platform/lambda-function';
import { createTerminalQueue } from '../platform/work-queue';
import type { StateStore } from './state-store';

/** How the notifier reads the stream. */
export interface StatusNotifierTuning {
  /** Stream records per invocation. */
  readonly batchSize: number;
  /** Retries of a failing batch (bisected) before its records go to the failure queue. */
  readonly retryAttempts: number;
  /** Records older than this are given up (to the failure queue) rather than told late. */
  readonly maxRecordAgeSeconds: number;
}

export const DEFAULT_NOTIFIER_TUNING: StatusNotifierTuning = {
  batchSize: 25,
  retryAttempts: 10,
  maxRecordAgeSeconds: 24 * 3600,
};

export interface StatusNotifierProps {
  /** Its stream (NEW_AND_OLD_IMAGES) is what the notifier reads. */
  readonly stateStore: StateStore;
  /** Every client's reply queue: the notifier may send to these and nothing else. */
  readonly replyQueues: readonly sqs.IQueue[];
  /** JSON of ClientRegistry (SubmissionApi.clientRegistry). */
  readonly clientRegistry: string;
  /**
   * The operator alert bus: the notifier is also the relay of the alert outbox (the alerts a state
   * change raises, written with it), since DynamoDB Streams serves two readers per shard at most.
   */
  readonly alertBus: events.IEventBus;
  /** @default DEFAULT_NOTIFIER_TUNING */
  readonly tuning?: StatusNotifierTuning;
}

/**
 * The status notifier: a function on the state table's stream that tells each order's client,
 * on the client's reply queue, the order's status changes (Received on creation; Completed,
 * Failed or Compensated on a transition into the states clientStatusFor names), and counts every
 * state an order enters (OrdersEnteredState). Only creations, changes into those states and
 * transitions into the others reach it (event filter); whether a told state changed at all is
 * decided in code, since a filter cannot compare the old image with the new. A failing batch is bisected and
 * retried a bounded number of times; what still fails goes to the failure queue (record pointers,
 * for an operator). It is also the relay of the alert outbox: an alert written with a state change
 * is put on the alert bus and its entry removed (DESIGN.md, Alert outbox).
 */
export class StatusNotifier extends Construct {
  readonly notifier: LambdaFunction;
  /** Stream records given up after the retries (Lambda's on-failure records). */
  readonly failureQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: StatusNotifierProps) {
    super(scope, id);
    const tuning = props.tuning ?? DEFAULT_NOTIFIER_TUNING;
    validateTuning(this.node.path, tuning);
    if (props.replyQueues.length === 0) {
      throw new Error(`StatusNotifier ${this.node.path}: replyQueues must name at least one queue`);
    }
    if (props.stateStore.table.tableStreamArn === undefined) {
      throw new Error(`StatusNotifier ${this.node.path}: the state table has no stream`);
    }
    this.failureQueue = createTerminalQueue(
      this,
      'FailureQueue',
      'On-failure destination of the status notifier: an operator reads it; nothing consumes it automatically.',
    );
    this.notifier = new LambdaFunction(this, 'Notifier', {
      handler: 'scheduler-agent-supervisor/handlers/status-notifier',
      metricsNamespace: METRICS_NAMESPACE,
      description: "Tells each order's client its status changes on the client's reply queue",
      serviceName: RoleServiceName.StatusNotifier,
      timeout: Duration.seconds(30),
      environment: {
        [EnvKey.ClientRegistry]: props.clientRegistry,
        [EnvKey.AlertBusName]: props.alertBus.eventBusName,
        [EnvKey.StateTableName]: props.stateStore.tableName,
      },
    });
    const fn = this.notifier.function;
    // SendMessage only (grantSendMessages would add GetQueueAttributes and GetQueueUrl): the
    // queues are SSE-SQS, so no KMS permission is needed either.
    iam.Grant.addToPrincipal({
      grantee: fn,
      actions: ['sqs:SendMessage'],
      resourceArns: props.replyQueues.map((queue) => queue.queueArn),
    });
    // The outbox relay: publish each alert, then remove its entry (a conditional UpdateItem).
    props.alertBus.grantPutEventsTo(fn);
    props.stateStore.grant(fn, 'dynamodb:UpdateItem');
    addTableStreamSource(fn, props.stateStore.table, {
      // From the oldest record kept: a status changed while the notifier was being deployed is told.
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: tuning.batchSize,
      bisectBatchOnError: true,
      retryAttempts: tuning.retryAttempts,
      maxRecordAge: Duration.seconds(tuning.maxRecordAgeSeconds),
      // One batch per shard at a time: an order's statuses reach its queue in order.
      parallelizationFactor: 1,
      reportBatchItemFailures: true,
      onFailure: new eventSources.SqsDlq(this.failureQueue),
      filters: STATUS_STREAM_FILTERS.map((pattern) => lambda.FilterCriteria.filter(pattern)),
    });
  }
}

/** The states a transition into which a client is told about (clientStatusFor), in one place. */
export const TOLD_STATES: readonly ProcessState[] = Object.values(ProcessState).filter(
  (state) => clientStatusFor(state) !== undefined,
);

/** The states no client is told about: a transition into one is only counted (OrdersEnteredState). */
const UNTOLD_STATES: readonly ProcessState[] = Object.values(ProcessState).filter(
  (state) => !TOLD_STATES.includes(state),
);

/**
 * Creations, modifications whose new image is in a told state, and transitions into each other
 * state (its old image in another state), so the notifier counts every state entered
 * (OrdersEnteredState, the console's dashboard) without being invoked for the many writes within
 * Processing (each step's progress). Any pattern matches (OR): five patterns, Lambda's default
 * quota of filters per event source mapping (a sixth needs a quota increase, up to 10).
 */
export const STATUS_STREAM_FILTERS = [
  { eventName: lambda.FilterRule.isEqual('INSERT') },
  {
    eventName: lambda.FilterRule.isEqual('MODIFY'),
    dynamodb: { NewImage: { [StateAttr.ProcessState]: { S: lambda.FilterRule.or(...TOLD_STATES) } } },
  },
  ...UNTOLD_STATES.map((state) => ({
    eventName: lambda.FilterRule.isEqual('MODIFY'),
    dynamodb: {
      NewImage: { [StateAttr.ProcessState]: { S: lambda.FilterRule.isEqual(state) } },
      OldImage: { [StateAttr.ProcessState]: { S: lambda.FilterRule.notEquals(state) } },
    },
  })),
];

function validateTuning(where: string, tuning: StatusNotifierTuning): void {
  const problems: string[] = [];
  const { batchSize, retryAttempts, maxRecordAgeSeconds } = tuning;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000) {
    problems.push(`batchSize must be an integer from 1 to 1000, got ${batchSize}`);
  }
  // Bounded: -1 (retry until the record expires) would let one bad record hold the shard for a day.
  if (!Number.isInteger(retryAttempts) || retryAttempts < 0 || retryAttempts > 10_000) {
    problems.push(`retryAttempts must be an integer from 0 to 10000, got ${retryAttempts}`);
  }
  if (!Number.isInteger(maxRecordAgeSeconds) || maxRecordAgeSeconds < 60 || maxRecordAgeSeconds > 604_800) {
    problems.push(`maxRecordAgeSeconds must be an integer from 60 to 604800, got ${maxRecordAgeSeconds}`);
  }
  if (problems.length > 0) throw new Error(`StatusNotifier ${where}: ${problems.join('; ')}`);
}
