import {
  type DynamoDBDocumentClient,
  GetCommand,
  type GetCommandInput,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { isoAt } from '../../shared/clock';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import { hasErrorName } from '../../shared/errors';
import {
  ALERT_NAME_PLACEHOLDER,
  AlertType,
  alertIdFor,
  bindNames,
  bindParams,
  DUE_INDEX,
  EMPTY_MAP_PLACEHOLDER,
  type ParamType,
  type RenderOptions,
  renderTransition,
  StateAttr,
  type TransitionName,
  type TransitionParams,
} from '../contracts';
import type {
  ClaimRequest,
  ClaimStore,
  CreateIfAbsentResult,
  DuePageCursor,
  DueRecord,
  DueRecordPage,
  RecordVersions,
  ReleaseRequest,
  StateRecordCreator,
  StateRecordReader,
  SupervisionStore,
  TransitionResult,
} from '../domain/ports';
import { type LastError, type StateRecord } from '../domain/state-record';
import {
  dueRecordFromItem,
  lastErrorToItem,
  requireNumber,
  stateRecordFromItem,
  stateRecordToItem,
} from './state-record-item';

/** Exactly what the index holds: the table key, the index keys and its projected attributes. */
const DUE_PROJECTION = [StateAttr.OrderId, DUE_INDEX.sortKey, ...DUE_INDEX.projectedAttributes];

/**
 * The state store (DynamoDB). Every write is conditional: creation only when absent, and every
 * transition only while the record still holds the values its caller decided on, so a stale reader
 * (a slow starter, a second supervisor, an expired execution) can never overwrite newer state.
 */
export class DynamoStateStore implements StateRecordReader, StateRecordCreator, ClaimStore, SupervisionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    if (!tableName) {
      throw new Error('DynamoStateStore: tableName is required');
    }
  }

  async get(orderId: string): Promise<StateRecord | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [StateAttr.OrderId]: orderId },
        ConsistentRead: true,
      }),
    );
    return item ? stateRecordFromItem(item) : undefined;
  }

  async createIfAbsent(record: StateRecord): Promise<CreateIfAbsentResult<StateRecord>> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: stateRecordToItem(record),
          ConditionExpression: 'attribute_not_exists(#id)',
          ExpressionAttributeNames: { '#id': StateAttr.OrderId },
        }),
      );
      return { created: true };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) {
        throw error;
      }
    }
    const existing = await this.get(record.orderId);
    if (existing === undefined) {
      // Records are never deleted by the application, so this means someone removed it by hand.
      throw new Error(`State record '${record.orderId}' existed at write time but is gone now`);
    }
    return { created: false, existing };
  }

  async claim(request: ClaimRequest): Promise<TransitionResult> {
    return this.transition(request.orderId, request.kind === 'steps' ? 'claim' : 'claimCompensation', {
      instanceId: request.instanceId,
      seenAttempt: request.seenAttempt,
      attempt: request.attempt,
      claimableUntil: request.claimableUntilCompleteBy,
      plan: { ...request.plan },
      completeBy: request.completeBy,
      now: isoAt(request.at),
    });
  }

  /** Fenced on the claim itself, UpdatedAt included (see STATE_TRANSITIONS.release). */
  async release(request: ReleaseRequest): Promise<TransitionResult> {
    return this.transition(request.orderId, request.kind === 'steps' ? 'release' : 'releaseCompensation', {
      instanceId: request.instanceId,
      attempt: request.attempt,
      claimedAt: isoAt(request.claimedAt),
      restoredAttempt: request.restoredAttempt,
      completeBy: request.completeBy,
      now: isoAt(request.at),
    });
  }

  async versionsOf(orderId: string): Promise<RecordVersions | undefined> {
    const { Item: item } = await this.client.send(new GetCommand(versionsRead(this.tableName, orderId)));
    if (!item) return undefined;
    return {
      schemaVersion: requireNumber(item, StateAttr.SchemaVersion, orderId),
      workflowVersion: requireNumber(item, StateAttr.WorkflowVersion, orderId),
    };
  }

  async queryDue(shard: string, now: number, limit: number, cursor?: DuePageCursor): Promise<DueRecordPage> {
    const names: Record<string, string> = { '#ds': DUE_INDEX.partitionKey, '#cb': DUE_INDEX.sortKey };
    DUE_PROJECTION.forEach((attribute, index) => {
      names[`#p${index}`] = attribute;
    });
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: DUE_INDEX.name,
        KeyConditionExpression: '#ds = :shard AND #cb <= :now',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':shard': shard, ':now': now },
        ProjectionExpression: DUE_PROJECTION.map((_, index) => `#p${index}`).join(', '),
        Limit: limit,
        ...(cursor !== undefined && { ExclusiveStartKey: { ...cursor } }),
      }),
    );
    return {
      records: (result.Items ?? []).map(dueRecordFromItem),
      ...(result.LastEvaluatedKey !== undefined && { next: result.LastEvaluatedKey }),
    };
  }

  /** With a RunningStep, the step-bound variant also marks that step TimedOut (same fence). */
  async resetExpired(
    seen: DueRecord,
    change: { readonly failureCount: number; readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult> {
    const values = {
      ...expiredAttempt(seen),
      failureCount: change.failureCount,
      completeBy: change.completeBy,
      now: isoAt(change.at),
    };
    return seen.runningStep === undefined
      ? this.transition(seen.orderId, 'resetExpired', values)
      : this.transition(
          seen.orderId,
          'resetExpiredInStep',
          { ...values, runningStep: seen.runningStep },
          { step: seen.runningStep },
        );
  }

  async failExpired(
    seen: DueRecord,
    change: {
      readonly failureCount: number;
      readonly lastError: LastError;
      readonly at: number;
      readonly correlationId: string;
    },
  ): Promise<TransitionResult> {
    const values = {
      ...expiredAttempt(seen),
      failureCount: change.failureCount,
      lastError: lastErrorToItem(change.lastError),
      now: isoAt(change.at),
      // The OrderFailed alert, in the same write (DESIGN.md, Alert outbox).
      alertId: alertIdFor(seen.orderId, AlertType.OrderFailed, seen.attempt),
      attempt: seen.attempt,
      correlationId: change.correlationId,
    };
    return seen.runningStep === undefined
      ? this.transition(seen.orderId, 'failExpired', values)
      : this.transition(
          seen.orderId,
          'failExpiredInStep',
          { ...values, runningStep: seen.runningStep },
          { step: seen.runningStep },
        );
  }

  async resetExpiredCompensation(
    seen: DueRecord,
    change: { readonly compensationFailureCount: number; readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult> {
    return this.transition(seen.orderId, 'resetExpiredCompensation', {
      ...expiredCompensation(seen),
      compensationFailureCount: change.compensationFailureCount,
      completeBy: change.completeBy,
      now: isoAt(change.at),
    });
  }

  async failExpiredCompensation(
    seen: DueRecord,
    change: {
      readonly compensationFailureCount: number;
      readonly lastError: LastError;
      readonly at: number;
      readonly correlationId: string;
    },
  ): Promise<TransitionResult> {
    return this.transition(seen.orderId, 'failExpiredCompensation', {
      ...expiredCompensation(seen),
      compensationFailureCount: change.compensationFailureCount,
      lastError: lastErrorToItem(change.lastError),
      now: isoAt(change.at),
      // The CompensationFailed alert, in the same write (DESIGN.md, Alert outbox).
      alertId: alertIdFor(seen.orderId, AlertType.CompensationFailed, seen.attempt),
      attempt: seen.attempt,
      correlationId: change.correlationId,
    });
  }

  async restartCompensation(
    seen: DueRecord,
    change: { readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult> {
    return this.transition(seen.orderId, 'restartCompensation', {
      seenCompleteBy: seen.completeBy,
      seenAttempt: seen.attempt,
      completeBy: change.completeBy,
      now: isoAt(change.at),
    });
  }

  async restartPending(
    seen: DueRecord,
    change: { readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult> {
    return this.transition(seen.orderId, 'restartPending', {
      seenCompleteBy: seen.completeBy,
      seenAttempt: seen.attempt,
      completeBy: change.completeBy,
      now: isoAt(change.at),
    });
  }

  /** Applies a transition of STATE_TRANSITIONS; 'lost' when its condition (the fence) failed. */
  private async transition<N extends TransitionName>(
    orderId: string,
    name: N,
    values: TransitionParams<N>,
    options: RenderOptions = {},
  ): Promise<TransitionResult> {
    const update = transitionUpdate(name, orderId, values, options);
    try {
      await this.client.send(new UpdateCommand({ TableName: this.tableName, ...update }));
      return 'applied';
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        return 'lost';
      }
      if (!(raisesAlert(update) && hasErrorName(error, 'ValidationException'))) throw error;
      // A record claimed before the alert outbox was deployed has no AlertOutbox map to SET its
      // entry in (DynamoDB: "document path ... invalid for update"): create it, and try once more.
      await this.ensureAlertOutbox(orderId);
    }
    try {
      await this.client.send(new UpdateCommand({ TableName: this.tableName, ...update }));
      return 'applied';
    } catch (error) {
      if (isConditionalCheckFailed(error)) return 'lost';
      throw error;
    }
  }

  /** Creates an empty AlertOutbox when absent: no state change (ProcessState and UpdatedAt stay). */
  private async ensureAlertOutbox(orderId: string): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [StateAttr.OrderId]: orderId },
        UpdateExpression: `SET #outbox = if_not_exists(#outbox, ${EMPTY_MAP_PLACEHOLDER})`,
        ConditionExpression: 'attribute_exists(#id)',
        ExpressionAttributeNames: { '#outbox': StateAttr.AlertOutbox, '#id': StateAttr.OrderId },
        ExpressionAttributeValues: { [EMPTY_MAP_PLACEHOLDER]: {} },
      }),
    );
  }
}

/**
 * The UpdateItem request (all but the table name) of a transition of STATE_TRANSITIONS, its
 * parameters bound to `values`: the SDK side of the table, as the scheduler's UpdateItem states
 * are its ASL side.
 */
export function transitionUpdate<N extends TransitionName>(
  name: N,
  orderId: string,
  values: TransitionParams<N>,
  options: RenderOptions = {},
): Omit<UpdateCommandInput, 'TableName'> {
  const rendered = renderTransition(name, options);
  const bound = bindParams(name, rendered, values as Readonly<Record<string, unknown>>, sdkTypeOf, {
    // The document client marshals plain values and objects itself.
    constant: (value) => value,
    map: (entries) => ({ ...entries }),
  });
  return {
    Key: { [StateAttr.OrderId]: orderId },
    UpdateExpression: rendered.updateExpression,
    ConditionExpression: rendered.conditionExpression,
    ExpressionAttributeNames: {
      ...rendered.names,
      ...bindNames(rendered, values as Readonly<Record<string, unknown>>, String),
    },
    ExpressionAttributeValues: {
      ...rendered.constants,
      ...Object.fromEntries((rendered.emptyLists ?? []).map((placeholder) => [placeholder, []])),
      ...Object.fromEntries((rendered.emptyMaps ?? []).map((placeholder) => [placeholder, {}])),
      ...bound,
    },
  };
}

/** Whether an update writes an alert outbox entry (its name is bound: THIS_ALERT). */
function raisesAlert(update: Omit<UpdateCommandInput, 'TableName'>): boolean {
  return update.ExpressionAttributeNames?.[ALERT_NAME_PLACEHOLDER] !== undefined;
}

/** The DynamoDB type the document client marshals a value to (undefined: not a parameter value). */
function sdkTypeOf(value: unknown): ParamType | undefined {
  if (typeof value === 'string') return 'S';
  if (typeof value === 'number' && Number.isFinite(value)) return 'N';
  if (Array.isArray(value)) return 'L';
  if (value !== null && typeof value === 'object') return 'M';
  return undefined;
}

/** The supervisor's fence: the very attempt it saw expire (lock, deadline, failure count). */
function expiredAttempt(seen: DueRecord): {
  seenLock: string;
  seenCompleteBy: number;
  seenFailureCount: number;
} {
  if (seen.lockedBy === undefined) {
    throw new Error(`Cannot fence an expired attempt of '${seen.orderId}' without its LockedBy`);
  }
  return { seenLock: seen.lockedBy, seenCompleteBy: seen.completeBy, seenFailureCount: seen.failureCount };
}

/** The supervisor's fence on an expired compensation attempt (lock, deadline, compensation failure count). */
function expiredCompensation(seen: DueRecord): {
  seenLock: string;
  seenCompleteBy: number;
  seenCompensationFailureCount: number;
} {
  if (seen.lockedBy === undefined) {
    throw new Error(`Cannot fence an expired compensation attempt of '${seen.orderId}' without its LockedBy`);
  }
  return {
    seenLock: seen.lockedBy,
    seenCompleteBy: seen.completeBy,
    seenCompensationFailureCount: seen.compensationFailureCount,
  };
}

/** The supervisor's read of a due record's versions, and nothing else of it (its grant names these). */
export function versionsRead(tableName: string, orderId: string): GetCommandInput {
  return {
    TableName: tableName,
    Key: { [StateAttr.OrderId]: orderId },
    ProjectionExpression: '#s, #w',
    ExpressionAttributeNames: { '#s': StateAttr.SchemaVersion, '#w': StateAttr.WorkflowVersion },
    ConsistentRead: true,
  };
}
