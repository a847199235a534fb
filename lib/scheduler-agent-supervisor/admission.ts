import { Duration } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  AdmissionCounterAttr,
  type AdmissionSettings,
  EnvKey,
  METRICS_NAMESPACE,
  RoleServiceName,
  StateAttr,
  TERMINAL_STATES,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { addTableStreamSource, DataStore, type DataTableOptions } from '../platform/data-table';
import { LambdaFunction } from '../platform/lambda-function';
import { createTerminalQueue } from '../platform/work-queue';
import { validateAdmissionSettings } from './config';
import type { StateStore } from './state-store';

export type AdmissionStoreProps = DataTableOptions;

/**
 * The admission table: one counter item per shard (`shard#<n>`: InFlight, Cap, Released) and the
 * drain statistics item (`drain`). Small and hot by design; sharding spreads its writes over
 * several items (contracts/admission.ts). Its grants are per role: a submitter takes slots and
 * reads the drain, a releaser gives slots back and writes the drain.
 */
export class AdmissionStore extends DataStore {
  constructor(scope: Construct, id: string, props: AdmissionStoreProps = {}) {
    super(scope, id, {
      ...props,
      partitionKey: { name: AdmissionCounterAttr.Pk, type: dynamodb.AttributeType.STRING },
    });
  }

  /** Taking a slot (an UpdateItem inside the acceptance transaction) and reading the drain for Retry-After. */
  grantTakeSlots(grantee: iam.IGrantable): void {
    this.grant(grantee, 'dynamodb:UpdateItem', 'dynamodb:GetItem');
  }

  /** Releasing slots (UpdateItem inside the release transaction) and the drain's optimistic write. */
  grantReleaseSlots(grantee: iam.IGrantable): void {
    this.grant(grantee, 'dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem');
  }
}

/** Retries of a failing stream batch (bisected each time) before it goes to the release DLQ. */
const RELEASE_RETRY_ATTEMPTS = 5;
/** Stream records older than this go to the DLQ; the reconciler releases what they held. */
const RELEASE_MAX_RECORD_AGE = Duration.hours(1);
const RELEASE_BATCH_SIZE = 25;
const RELEASE_TIMEOUT = Duration.seconds(30);
/** The reconciler's schedule (EventBridge rates start at one minute) and its function timeout. */
const RECONCILE_RATE = Duration.minutes(1);
const RECONCILE_TIMEOUT = Duration.seconds(60);

export interface AdmissionReleaseProps {
  /** The state store: its table, indexes and key, and the grants its readers and writers get. */
  readonly stateStore: StateStore;
  /** The admission counters' table whose slots the release returns. */
  readonly admissionStore: AdmissionStore;
  /** The settings of this part, from the deployment's profile. */
  readonly settings: AdmissionSettings;
}

/**
 * Releases admission slots exactly once: a consumer of the state table's stream, filtered to
 * terminal records still holding a slot (bisecting, bounded retries, a record age limit and an
 * on-failure queue), and a scheduled reconciler that releases, through the AdmissionIndex, what
 * the consumer lost. Both use the same conditional transaction, so neither can release twice.
 */
export class AdmissionRelease extends Construct {
  readonly releaser: LambdaFunction;
  readonly reconciler: LambdaFunction;
  /** Stream batches the releaser gave up on (pointers, for an operator; the reconciler heals them). */
  readonly deadLetterQueue: sqs.Queue;
  readonly schedule: events.Rule;

  constructor(scope: Construct, id: string, props: AdmissionReleaseProps) {
    super(scope, id);
    validateAdmissionSettings(`AdmissionRelease ${this.node.path}`, props.settings);
    const { stateStore, admissionStore } = props;
    if (stateStore.table.tableStreamArn === undefined) {
      throw new Error(`AdmissionRelease ${this.node.path}: the state table has no stream to release from`);
    }
    const environment = {
      [EnvKey.StateTableName]: stateStore.tableName,
      [EnvKey.AdmissionTableName]: admissionStore.tableName,
      [EnvKey.AdmissionSettings]: JSON.stringify(props.settings),
    };

    this.deadLetterQueue = createTerminalQueue(
      this,
      'ReleaseDeadLetterQueue',
      'On-failure destination of the admission release consumer: stream batch pointers for an operator; the reconciler releases their slots.',
    );
    this.releaser = new LambdaFunction(this, 'Releaser', {
      handler: 'scheduler-agent-supervisor/handlers/admission-release',
      metricsNamespace: METRICS_NAMESPACE,
      description:
        'State table stream: gives the admission slot of each order reaching a terminal state back, once',
      serviceName: 'admission-release',
      timeout: RELEASE_TIMEOUT,
      environment,
    });
    const releaser = this.releaser.function;
    stateStore.grant(releaser, 'dynamodb:UpdateItem');
    admissionStore.grantReleaseSlots(releaser);
    addTableStreamSource(releaser, stateStore.table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: RELEASE_BATCH_SIZE,
      bisectBatchOnError: true,
      retryAttempts: RELEASE_RETRY_ATTEMPTS,
      maxRecordAge: RELEASE_MAX_RECORD_AGE,
      parallelizationFactor: 1,
      reportBatchItemFailures: true,
      onFailure: new eventSources.SqsDlq(this.deadLetterQueue),
      filters: [lambda.FilterCriteria.filter(ADMISSION_RELEASE_STREAM_FILTER)],
    });

    this.reconciler = new LambdaFunction(this, 'Reconciler', {
      handler: 'scheduler-agent-supervisor/handlers/admission-reconciler',
      metricsNamespace: METRICS_NAMESPACE,
      description: 'Releases the admission slots of terminal orders whose release was lost (AdmissionIndex)',
      serviceName: RoleServiceName.AdmissionReconciler,
      timeout: RECONCILE_TIMEOUT,
      reservedConcurrentExecutions: 1,
      environment,
    });
    const reconciler = this.reconciler.function;
    // The next scheduled run replaces a failed or throttled one: no retries, no stale events.
    reconciler.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.seconds(60) });
    stateStore.grantQueryAdmissionIndex(reconciler);
    // GetItem: a found record's AdmissionClientShard (the index does not project it).
    stateStore.grant(reconciler, 'dynamodb:UpdateItem', 'dynamodb:GetItem');
    admissionStore.grantReleaseSlots(reconciler);
    this.schedule = new events.Rule(this, 'Schedule', {
      description: 'Runs the admission reconciler',
      schedule: events.Schedule.rate(RECONCILE_RATE),
      targets: [new targets.LambdaFunction(reconciler, { retryAttempts: 0 })],
    });
  }
}

/**
 * Stream records whose new image still holds a slot and is terminal: the release's own MODIFY
 * (AdmissionShard removed) and every non-terminal transition never invoke the releaser.
 */
export const ADMISSION_RELEASE_STREAM_FILTER = {
  dynamodb: {
    NewImage: {
      [StateAttr.AdmissionShard]: { S: lambda.FilterRule.exists() },
      [StateAttr.ProcessState]: { S: lambda.FilterRule.or(...TERMINAL_STATES) },
    },
  },
};
