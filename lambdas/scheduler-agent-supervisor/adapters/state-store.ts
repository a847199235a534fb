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
  COMPENSATION_NAMES,
  CompensationAttr,
  CompensationStatus,
  DUE_INDEX,
  EMPTY_MAP_PLACEHOLDER,
  LastErrorAttr,
  type OperationName,
  type ParamType,
  ProcessState,
  type RenderOptions,
  renderTransition,
  STEP_NAMES,
  StateAttr,
  StepAttr,
  type StepName,
  StepStatus,
  SUPPORTED_STATE_SCHEMA_VERSIONS,
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
import {
  type CompensationEntry,
  type LastError,
  type StateRecord,
  type StepState,
  UnsupportedRecordVersion,
} from '../domain/state-record';

type Item = Record<string, unknown>;

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

export function stateRecordToItem(record: StateRecord): Item {
  const steps: Record<string, Item> = {};
  for (const [name, step] of Object.entries(record.steps) as [StepName, StepState | undefined][]) {
    if (step) {
      steps[name] = {
        [StepAttr.Status]: step.status,
        [StepAttr.StartedAt]: step.startedAt,
        [StepAttr.CompletedAt]: step.completedAt,
        [StepAttr.EndedAt]: step.endedAt,
        [StepAttr.Result]: step.result,
      };
    }
  }
  const log: Record<string, Item> = {};
  for (const [name, entry] of Object.entries(record.compensationLog) as [
    StepName,
    CompensationEntry | undefined,
  ][]) {
    if (entry) log[name] = compensationEntryToItem(entry);
  }
  return {
    [StateAttr.OrderId]: record.orderId,
    [StateAttr.ProcessState]: record.processState,
    [StateAttr.LockedBy]: record.lockedBy,
    [StateAttr.CompleteBy]: record.completeBy,
    [StateAttr.DueShard]: record.dueShard,
    [StateAttr.FailureCount]: record.failureCount,
    [StateAttr.Attempt]: record.attempt,
    [StateAttr.Steps]: steps,
    [StateAttr.Plan]: record.plan,
    [StateAttr.RunningStep]: record.runningStep,
    [StateAttr.CompensationLog]: log,
    [StateAttr.CompensationFailureCount]: record.compensationFailureCount,
    [StateAttr.OrderFingerprint]: record.orderFingerprint,
    [StateAttr.SchemaVersion]: record.schemaVersion,
    [StateAttr.WorkflowVersion]: record.workflowVersion,
    [StateAttr.CreatedAt]: record.createdAt,
    [StateAttr.UpdatedAt]: record.updatedAt,
    [StateAttr.LastError]: record.lastError ? lastErrorToItem(record.lastError) : undefined,
    [StateAttr.ClientId]: record.clientId,
    [StateAttr.AdmissionShard]: record.admissionShard,
    [StateAttr.RetryBudget]: record.retryBudget,
    [StateAttr.CallsMade]: record.callsMade === undefined ? undefined : { ...record.callsMade },
  };
}

function compensationEntryToItem(entry: CompensationEntry): Item {
  return {
    [CompensationAttr.Seq]: entry.seq,
    [CompensationAttr.Compensation]: entry.compensation,
    [CompensationAttr.Undoes]: entry.undoes,
    [CompensationAttr.ConfirmationId]: entry.confirmationId,
    [CompensationAttr.Status]: entry.status,
    [CompensationAttr.Uncertain]: entry.uncertain,
    [CompensationAttr.RecordedAt]: entry.recordedAt,
    [CompensationAttr.CompensatingAt]: entry.compensatingAt,
    [CompensationAttr.CompensatedAt]: entry.compensatedAt,
    [CompensationAttr.Result]: entry.result,
  };
}

function lastErrorToItem(lastError: LastError): Item {
  return {
    [LastErrorAttr.Source]: lastError.source,
    [LastErrorAttr.Error]: lastError.error,
    [LastErrorAttr.Cause]: lastError.cause,
    [LastErrorAttr.At]: lastError.at,
  };
}

const PROCESS_STATES = new Set<string>(Object.values(ProcessState));
const STEP_STATUSES = new Set<string>(Object.values(StepStatus));
const COMPENSATION_STATUSES = new Set<string>(Object.values(CompensationStatus));
const PLANNED_OPERATIONS: readonly OperationName[] = [...STEP_NAMES, ...COMPENSATION_NAMES];

/** Reads a stored record, failing with the attribute at fault rather than passing garbage on. */
export function stateRecordFromItem(item: Item): StateRecord {
  const orderId = requireString(item, StateAttr.OrderId, '(unknown)');
  const schemaVersion = requireNumber(item, StateAttr.SchemaVersion, orderId);
  if (!SUPPORTED_STATE_SCHEMA_VERSIONS.includes(schemaVersion)) {
    throw new UnsupportedRecordVersion(
      orderId,
      `SchemaVersion ${schemaVersion}; supported: ${SUPPORTED_STATE_SCHEMA_VERSIONS.join(', ')}`,
    );
  }
  const steps: Partial<Record<StepName, StepState>> = {};
  const storedSteps = asMap(item[StateAttr.Steps]);
  for (const name of STEP_NAMES) {
    const step = asMap(storedSteps?.[name]);
    if (step) {
      steps[name] = stepStateFromItem(step, orderId, name);
    }
  }
  const plan: Partial<Record<OperationName, number>> = {};
  const storedPlan = asMap(item[StateAttr.Plan]);
  for (const name of PLANNED_OPERATIONS) {
    const deadline = storedPlan?.[name];
    if (typeof deadline === 'number') {
      plan[name] = deadline;
    }
  }
  const compensationLog: Partial<Record<StepName, CompensationEntry>> = {};
  const storedLog = asMap(item[StateAttr.CompensationLog]);
  for (const name of STEP_NAMES) {
    const entry = asMap(storedLog?.[name]);
    if (entry) compensationLog[name] = compensationEntryFromItem(entry, orderId, name);
  }
  const runningStep = item[StateAttr.RunningStep];
  const storedLastError = asMap(item[StateAttr.LastError]);
  const storedCalls = asMap(item[StateAttr.CallsMade]);
  const retryBudget = optionalNumber(item, StateAttr.RetryBudget);
  return {
    orderId,
    processState: requireProcessState(item, orderId),
    ...optionalString(item, StateAttr.LockedBy, 'lockedBy'),
    completeBy: requireNumber(item, StateAttr.CompleteBy, orderId),
    ...optionalString(item, StateAttr.DueShard, 'dueShard'),
    failureCount: requireNumber(item, StateAttr.FailureCount, orderId),
    attempt: requireNumber(item, StateAttr.Attempt, orderId),
    steps,
    ...(storedPlan !== undefined && { plan }),
    ...(typeof runningStep === 'string' && { runningStep: stepNameOf(runningStep, orderId) }),
    compensationLog,
    // Every schema-2 record is created with both; read an item without them (a hand-made one) as none yet.
    compensationFailureCount: optionalNumber(item, StateAttr.CompensationFailureCount) ?? 0,
    orderFingerprint: requireString(item, StateAttr.OrderFingerprint, orderId),
    schemaVersion,
    workflowVersion: requireNumber(item, StateAttr.WorkflowVersion, orderId),
    createdAt: requireString(item, StateAttr.CreatedAt, orderId),
    updatedAt: requireString(item, StateAttr.UpdatedAt, orderId),
    ...optionalString(item, StateAttr.ClientId, 'clientId'),
    ...optionalString(item, StateAttr.AdmissionShard, 'admissionShard'),
    ...(retryBudget !== undefined && { retryBudget }),
    ...(storedCalls !== undefined && { callsMade: callsMadeFrom(storedCalls) }),
    ...(storedLastError !== undefined && {
      lastError: {
        source: String(storedLastError[LastErrorAttr.Source] ?? ''),
        error: String(storedLastError[LastErrorAttr.Error] ?? ''),
        cause: String(storedLastError[LastErrorAttr.Cause] ?? ''),
        at: String(storedLastError[LastErrorAttr.At] ?? ''),
      },
    }),
  };
}

/** CallsMade as numbers per operation (a non-number entry is not a reservation: skipped). */
function callsMadeFrom(stored: Item): Record<string, number> {
  return Object.fromEntries(
    Object.entries(stored).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  );
}

function stepStateFromItem(step: Item, orderId: string, name: StepName): StepState {
  const status = step[StepAttr.Status];
  if (typeof status !== 'string' || !STEP_STATUSES.has(status)) {
    throw new Error(
      `State record '${orderId}': Steps.${name}.Status is ${JSON.stringify(status)}, not a StepStatus`,
    );
  }
  const result = asMap(step[StepAttr.Result]);
  return {
    status: status as StepStatus,
    ...optionalString(step, StepAttr.StartedAt, 'startedAt'),
    ...optionalString(step, StepAttr.CompletedAt, 'completedAt'),
    ...optionalString(step, StepAttr.EndedAt, 'endedAt'),
    ...(result !== undefined && { result }),
  };
}

function compensationEntryFromItem(entry: Item, orderId: string, name: StepName): CompensationEntry {
  const where = `State record '${orderId}': CompensationLog.${name}`;
  const status = entry[CompensationAttr.Status];
  if (typeof status !== 'string' || !COMPENSATION_STATUSES.has(status)) {
    throw new Error(`${where}.Status is ${JSON.stringify(status)}, not a CompensationStatus`);
  }
  const seq = entry[CompensationAttr.Seq];
  if (typeof seq !== 'number') throw new Error(`${where}.Seq must be a number, got ${JSON.stringify(seq)}`);
  const result = asMap(entry[CompensationAttr.Result]);
  return {
    seq,
    compensation: requireString(entry, CompensationAttr.Compensation, orderId),
    undoes: requireString(entry, CompensationAttr.Undoes, orderId),
    status: status as CompensationStatus,
    ...optionalString(entry, CompensationAttr.ConfirmationId, 'confirmationId'),
    ...(entry[CompensationAttr.Uncertain] === true && { uncertain: true }),
    ...optionalString(entry, CompensationAttr.RecordedAt, 'recordedAt'),
    ...optionalString(entry, CompensationAttr.CompensatingAt, 'compensatingAt'),
    ...optionalString(entry, CompensationAttr.CompensatedAt, 'compensatedAt'),
    ...(result !== undefined && { result }),
  };
}

const KNOWN_STEPS = new Set<string>(STEP_NAMES);

function stepNameOf(value: string, orderId: string): StepName {
  if (!KNOWN_STEPS.has(value)) {
    throw new Error(`State record '${orderId}': RunningStep is '${value}', not a step`);
  }
  return value as StepName;
}

function dueRecordFromItem(item: Item): DueRecord {
  const orderId = requireString(item, StateAttr.OrderId, '(unknown)');
  return {
    orderId,
    processState: requireProcessState(item, orderId),
    ...optionalString(item, StateAttr.LockedBy, 'lockedBy'),
    completeBy: requireNumber(item, StateAttr.CompleteBy, orderId),
    failureCount: requireNumber(item, StateAttr.FailureCount, orderId),
    attempt: requireNumber(item, StateAttr.Attempt, orderId),
    ...(typeof item[StateAttr.RunningStep] === 'string' && {
      runningStep: stepNameOf(item[StateAttr.RunningStep] as string, orderId),
    }),
    compensationFailureCount: optionalNumber(item, StateAttr.CompensationFailureCount) ?? 0,
  };
}

function optionalNumber(item: Item, attribute: string): number | undefined {
  const value = item[attribute];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function requireProcessState(item: Item, orderId: string): ProcessState {
  const value = item[StateAttr.ProcessState];
  if (typeof value !== 'string' || !PROCESS_STATES.has(value)) {
    throw new Error(
      `State record '${orderId}': ProcessState is ${JSON.stringify(value)}, not a ProcessState`,
    );
  }
  return value as ProcessState;
}

function requireString(item: Item, attribute: string, orderId: string): string {
  const value = item[attribute];
  if (typeof value !== 'string') {
    throw new Error(`State record '${orderId}': ${attribute} must be a string, got ${JSON.stringify(value)}`);
  }
  return value;
}

function requireNumber(item: Item, attribute: string, orderId: string): number {
  const value = item[attribute];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`State record '${orderId}': ${attribute} must be a number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function optionalString<K extends string>(item: Item, attribute: string, key: K): Partial<Record<K, string>> {
  const value = item[attribute];
  return typeof value === 'string' ? ({ [key]: value } as Record<K, string>) : {};
}

function asMap(value: unknown): Item | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Item) : undefined;
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
