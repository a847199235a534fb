import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import {
  ADMISSION_INDEX,
  ALERT_OUTBOX_INDEX,
  DUE_INDEX,
  STATE_INDEX,
  StateAttr,
  topLevelAttributesOf,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { DataStore, type DataTableOptions, grantTableKeyUse, keyAccessOf } from '../platform/data-table';

export type StateStoreProps = DataTableOptions;

/**
 * The scheduler's state store: one record per order (process state, lock, deadlines, per-step
 * state) and the supervisor's sparse, write-sharded `DueIndex` (DueShard, CompleteBy). Only
 * Pending and Processing records carry DueShard, so the index holds exactly what can expire.
 */
export class StateStore extends DataStore {
  constructor(scope: Construct, id: string, props: StateStoreProps = {}) {
    super(scope, id, {
      ...props,
      partitionKey: { name: StateAttr.OrderId, type: dynamodb.AttributeType.STRING },
      // Stream consumers compare old and new images: the status notifier (did ProcessState
      // change?) and the admission release (did the record become terminal?).
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    });
    // Only what the supervisor decides from (lock, state, counters): the scheduler's step and plan
    // updates then cost no index write.
    this.addIncludeIndex(DUE_INDEX, dynamodb.AttributeType.NUMBER);
    // Sparse: only records still holding an admission slot carry AdmissionShard. The reconciler
    // queries it per shard for terminal records whose release was lost.
    this.addIncludeIndex(ADMISSION_INDEX);
    // The operators' list: orders by state, newest first; only what a list row shows.
    this.addIncludeIndex(STATE_INDEX);
    // Sparse: only records whose AlertOutbox may hold an undelivered alert carry AlertOutboxShard.
    // The supervisor re-delivers, through it, what the stream relay gave up on.
    this.addIncludeIndex(ALERT_OUTBOX_INDEX);
  }

  /** Grants Query on AlertOutboxIndex only (the supervisor's alert backstop). */
  grantQueryAlertOutboxIndex(grantee: iam.IGrantable): void {
    this.grantQueryIndex(grantee, ALERT_OUTBOX_INDEX.name);
  }

  /** Grants Query on AdmissionIndex only (the admission reconciler). */
  grantQueryAdmissionIndex(grantee: iam.IGrantable): void {
    this.grantQueryIndex(grantee, ADMISSION_INDEX.name);
  }

  /** Grants Query on DueIndex only: the supervisor never needs Scan nor another index. */
  grantQueryDueIndex(grantee: iam.IGrantable): void {
    this.grantQueryIndex(grantee, DUE_INDEX.name);
  }

  /** Grants Query on StateIndex only: the operator list never needs Scan nor another index. */
  grantQueryStateIndex(grantee: iam.IGrantable): void {
    this.grantQueryIndex(grantee, STATE_INDEX.name);
  }

  /**
   * What an agent needs to reserve calls against an order's retry budget (adapters/call-budget.ts):
   * UpdateItem and GetItem on the table, limited by fine-grained access control to the attributes
   * the reservation names. Those are the key, RetryBudget and CallsMade, and, because lean workflow
   * versions mark the step Running in the same write (transition progressStepRunning, fenced on the
   * lock), the attributes that transition names (derived from the transitions table) too; the
   * refused reservation's read projects the lock and the state from those. IAM cannot tell an
   * attribute a request conditions on from one it updates, so the grant also lets an agent write the
   * lock and the state it may only compare: the fence is in the code (the rendered transition), not
   * in the grant. Enforced locally as on AWS (lib/local-runtime/iam).
   */
  grantCallReservation(grantee: iam.IGrantable): void {
    this.grantAttributes(grantee, ['dynamodb:UpdateItem', 'dynamodb:GetItem'], CALL_RESERVATION_ATTRIBUTES);
  }

  /**
   * What a compact version's agent writes once its call succeeded (adapters/step-completions.ts):
   * UpdateItem of transitions completeStep and completeOrder (the step Completed, its compensation
   * log entry, CompleteBy, and for the last step the order Processed, unlocked, out of the
   * supervisor's index), and the GetItem that reads back why one was refused (the step's status,
   * the lock, the state). As with grantCallReservation, the fence is in the rendered transition,
   * not in the grant.
   */
  grantStepCompletion(grantee: iam.IGrantable): void {
    this.grantAttributes(grantee, ['dynamodb:UpdateItem', 'dynamodb:GetItem'], STEP_COMPLETION_ATTRIBUTES);
  }

  /**
   * What the supervisor reads before it acts on a due record (adapters/state-store.ts versionsOf):
   * GetItem of the record's schema and workflow versions, and nothing else of it.
   */
  grantReadVersions(grantee: iam.IGrantable): void {
    this.grantAttributes(
      grantee,
      ['dynamodb:GetItem'],
      [StateAttr.OrderId, StateAttr.SchemaVersion, StateAttr.WorkflowVersion],
    );
  }

  /**
   * `actions` on the table, limited to `attributes` (dynamodb:Attributes), reads to the named
   * attributes (Select) and writes to returning only what they updated (ReturnValues): the
   * fine-grained pattern of https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html.
   */
  private grantAttributes(grantee: iam.IGrantable, actions: string[], attributes: readonly string[]): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions,
      resourceArns: [this.table.tableArn],
      conditions: {
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...attributes] },
        StringEqualsIfExists: {
          'dynamodb:Select': 'SPECIFIC_ATTRIBUTES',
          'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'],
        },
      },
    });
    grantTableKeyUse(this.table, grantee, keyAccessOf(actions));
  }
}

/** The attributes a call reservation names, with lean versions' progressStepRunning (see grantCallReservation). */
export const CALL_RESERVATION_ATTRIBUTES: readonly string[] = [
  ...new Set([
    StateAttr.OrderId,
    StateAttr.RetryBudget,
    StateAttr.CallsMade,
    ...topLevelAttributesOf('progressStepRunning'),
  ]),
];

/** The attributes a compact version's step completion names (see grantStepCompletion). */
export const STEP_COMPLETION_ATTRIBUTES: readonly string[] = [
  ...new Set([
    StateAttr.OrderId,
    ...topLevelAttributesOf('completeStep'),
    ...topLevelAttributesOf('completeOrder'),
  ]),
];
