/**
 * The operator's view of the state store: the conditional actions (STATE_TRANSITIONS' operator
 * entries), the StateIndex list and the inspect read. Kept apart from DynamoStateStore so the
 * operator reads only what it shows, and its grants stay its own.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isoAt } from '../../shared/clock';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import {
  CompensationAttr,
  isKnownWorkflowVersion,
  LastErrorAttr,
  OperatorActionAttr,
  type OperatorCompensationView,
  type OperatorLogView,
  type OperatorOrderRow,
  type OperatorStepView,
  ORDER_STEPS,
  ProcessState,
  STATE_INDEX,
  StateAttr,
  StepAttr,
  StepResultAttr,
  StepStatus,
  workflowSteps,
} from '../contracts';
import type { AdmissionSlot } from '../domain/admission';
import type {
  OperatorActionStore,
  OperatorActionWrite,
  OperatorLogEntry,
  OperatorRecordReader,
  OperatorRecordSummary,
  OperatorRecordView,
  OperatorTransitionName,
  SlotTakingResult,
  TransitionResult,
} from '../domain/ports';
import {
  type AdapterTiming,
  holdSlotOnRecord,
  REAL_TIMING,
  takeSlotTransactItem,
  transact,
} from './admission-store';
import { transitionUpdate } from './state-store';

type Item = Record<string, unknown>;

/** One Update of a TransactWriteItems request (what D's admission counter update joins). */
export type TransactUpdate = NonNullable<
  NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Update']
>;

export interface OperatorListPage {
  readonly rows: readonly OperatorOrderRow[];
  /** Opaque (base64url of the index's LastEvaluatedKey); absent on the last page. */
  readonly nextCursor?: string;
}

/** Why a cursor was refused: it names the problem for the 400. */
export class InvalidCursorError extends Error {}

const PROCESS_STATES = new Set<string>(Object.values(ProcessState));
const STEP_STATUSES = new Set<string>(Object.values(StepStatus));
/** The key of a StateIndex page: the table key and the index keys, nothing else. */
const CURSOR_KEYS = [StateAttr.OrderId, STATE_INDEX.partitionKey, STATE_INDEX.sortKey].sort();

export class DynamoOperatorStore implements OperatorActionStore, OperatorRecordReader {
  /**
   * @param admission where a retry takes its admission slot (only the action handler needs it:
   * list and inspect read the state table alone)
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly admission?: { readonly admissionTable: string; readonly timing?: AdapterTiming },
  ) {
    if (!tableName) throw new Error('DynamoOperatorStore: tableName is required');
    if (admission !== undefined && !admission.admissionTable) {
      throw new Error('DynamoOperatorStore: admission.admissionTable must not be empty');
    }
  }

  async summary(orderId: string): Promise<OperatorRecordSummary | undefined> {
    const item = await this.read(orderId);
    if (item === undefined) return undefined;
    return {
      orderId,
      processState: processStateOf(item, orderId),
      updatedAt: stringOf(item, StateAttr.UpdatedAt, orderId),
      ...(typeof item[StateAttr.LockedBy] === 'string' && { lockedBy: item[StateAttr.LockedBy] as string }),
      failureCount: numberOr(item[StateAttr.FailureCount], 0),
      compensationFailureCount: numberOr(item[StateAttr.CompensationFailureCount], 0),
      // 0 (never a version) when absent: such a record is refused, not guessed at.
      schemaVersion: numberOr(item[StateAttr.SchemaVersion], 0),
      workflowVersion: numberOr(item[StateAttr.WorkflowVersion], 0),
      ...(typeof item[StateAttr.AdmissionShard] === 'string' && {
        admissionShard: item[StateAttr.AdmissionShard] as string,
      }),
    };
  }

  /**
   * Applies the action with one UpdateItem: a cancel (no slot: compensation is not new work), or a
   * retry keeping the slot its record still holds (write.keepsSlot).
   */
  async apply(write: OperatorActionWrite): Promise<TransitionResult> {
    try {
      await this.client.send(new UpdateCommand(this.actionUpdate(write)));
      return 'applied';
    } catch (error) {
      if (isConditionalCheckFailed(error)) return 'lost';
      throw error;
    }
  }

  /**
   * A retry taking an admission slot: one TransactWriteItems of the action's update extended with
   * holdSlotOnRecord (SET AdmissionShard, only while the record holds none) and the counter's
   * takeSlotTransactItem. The record's ConditionalCheckFailed is 'lost' whatever the counter says
   * (the operator must look again before a slot matters); the counter's alone is 'shard-full'.
   */
  async applyTakingSlot(write: OperatorActionWrite, slot: AdmissionSlot): Promise<SlotTakingResult> {
    if (this.admission === undefined) {
      throw new Error('DynamoOperatorStore: constructed without an admission table, cannot take a slot');
    }
    if (write.transition === 'operatorCancel' || write.keepsSlot !== undefined) {
      throw new Error(
        `DynamoOperatorStore: ${write.transition}${write.keepsSlot === undefined ? '' : ' keeping a slot'} takes no admission slot`,
      );
    }
    const update = this.actionUpdate(write);
    const hold = holdSlotOnRecord(slot.key);
    const record: TransactUpdate = {
      ...update,
      UpdateExpression: addSetClause(update.UpdateExpression, hold.set),
      ConditionExpression: `(${update.ConditionExpression}) AND ${hold.condition}`,
      ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...hold.names },
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...hold.values },
    };
    const outcome = await transact(
      this.client,
      [{ Update: record }, takeSlotTransactItem(this.admission.admissionTable, slot, write.at)],
      this.admission.timing ?? REAL_TIMING,
    );
    if (outcome === 'done') return 'applied';
    if (outcome[0] === 'ConditionalCheckFailed') return 'lost';
    return 'shard-full';
  }

  /** The action's conditional Update, table included: usable alone or in a TransactWriteItems. */
  actionUpdate(
    write: OperatorActionWrite,
  ): TransactUpdate & { TableName: string; UpdateExpression: string; ConditionExpression: string } {
    const common = {
      seenUpdatedAt: write.seenUpdatedAt,
      completeBy: write.completeBy,
      dueShard: write.dueShard,
      entry: [operatorLogEntryToItem(write.entry)],
      now: isoAt(write.at),
    };
    const update = operatorTransitionUpdate(write.transition, write.orderId, common, write.seenState);
    const keeps = write.keepsSlot === undefined ? undefined : keepSlotCondition(write.keepsSlot);
    return {
      TableName: this.tableName,
      Key: update.Key as Item,
      UpdateExpression: update.UpdateExpression as string,
      ConditionExpression:
        keeps === undefined
          ? (update.ConditionExpression as string)
          : `(${update.ConditionExpression as string}) AND ${keeps.condition}`,
      ExpressionAttributeNames: {
        ...(update.ExpressionAttributeNames as Record<string, string>),
        ...keeps?.names,
      },
      ExpressionAttributeValues: { ...(update.ExpressionAttributeValues as Item), ...keeps?.values },
    };
  }

  /** Orders in one state, newest first (StateIndex, descending UpdatedAt). */
  async listByState(state: ProcessState, limit: number, cursor?: string): Promise<OperatorListPage> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: STATE_INDEX.name,
        KeyConditionExpression: '#state = :state',
        ExpressionAttributeNames: { '#state': STATE_INDEX.partitionKey },
        ExpressionAttributeValues: { ':state': state },
        ScanIndexForward: false,
        Limit: limit,
        ...(cursor !== undefined && { ExclusiveStartKey: decodeCursor(cursor, state) }),
      }),
    );
    return {
      rows: (result.Items ?? []).map(rowFromItem),
      ...(result.LastEvaluatedKey !== undefined && { nextCursor: encodeCursor(result.LastEvaluatedKey) }),
    };
  }

  async view(orderId: string): Promise<OperatorRecordView | undefined> {
    const item = await this.read(orderId);
    return item === undefined ? undefined : recordViewFromItem(item, orderId);
  }

  private async read(orderId: string): Promise<Item | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [StateAttr.OrderId]: orderId },
        ConsistentRead: true,
      }),
    );
    return item;
  }
}

/**
 * A retry keeping the slot its record holds: conditional on the record still holding that very
 * slot, so a release that ran since the read is noticed (the retry then takes a slot instead of
 * leaving a Pending order holding none).
 */
function keepSlotCondition(slotKey: string) {
  return {
    condition: '#keptShard = :keptShard',
    names: { '#keptShard': StateAttr.AdmissionShard },
    values: { ':keptShard': slotKey },
  };
}

/** `clause` added to the SET action of an update expression (one is added when it has none). */
export function addSetClause(updateExpression: string, clause: string): string {
  const match = /(^|\s)SET\s/i.exec(updateExpression);
  if (match === null) return `SET ${clause} ${updateExpression}`.trim();
  const at = match.index + match[0].length;
  return `${updateExpression.slice(0, at)}${clause}, ${updateExpression.slice(at)}`;
}

/** The SDK Update of an operator transition (the cancel also binds the state it saw). */
function operatorTransitionUpdate(
  transition: OperatorTransitionName,
  orderId: string,
  common: {
    seenUpdatedAt: string;
    completeBy: number;
    dueShard: string;
    entry: Item[];
    now: string;
  },
  seenState: ProcessState,
) {
  switch (transition) {
    case 'operatorRetry':
      return transitionUpdate('operatorRetry', orderId, common);
    case 'operatorRetryCompensation':
      return transitionUpdate('operatorRetryCompensation', orderId, common);
    case 'operatorCancel':
      return transitionUpdate('operatorCancel', orderId, { ...common, seenState });
  }
}

export function operatorLogEntryToItem(entry: OperatorLogEntry): Item {
  return {
    [OperatorActionAttr.Action]: entry.action,
    [OperatorActionAttr.By]: entry.by,
    [OperatorActionAttr.Reason]: entry.reason,
    [OperatorActionAttr.At]: entry.at,
    [OperatorActionAttr.SeenState]: entry.seenState,
    [OperatorActionAttr.SeenUpdatedAt]: entry.seenUpdatedAt,
    [OperatorActionAttr.NewState]: entry.newState,
    ...(entry.resetFailureCount !== undefined && {
      [OperatorActionAttr.ResetFailureCount]: entry.resetFailureCount,
    }),
  };
}

/** base64url of the page key's JSON: opaque to callers, checked on the way back in. */
export function encodeCursor(key: Readonly<Record<string, unknown>>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * The page key a cursor stands for, only if it is one this list produced for this state: exactly
 * the table and index keys, all strings, the partition the state asked for. Anything else would
 * make DynamoDB answer a 500-worthy ValidationException or read another state's page.
 */
export function decodeCursor(cursor: string, state: ProcessState): Item {
  const fail = (problem: string): never => {
    throw new InvalidCursorError(`cursor ${problem}; pass back the nextCursor of the previous page`);
  };
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) fail('is not a cursor this API returned');
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    fail('is not a cursor this API returned');
  }
  if (key === null || typeof key !== 'object' || Array.isArray(key))
    fail('is not a cursor this API returned');
  const record = key as Item;
  const keys = Object.keys(record).sort();
  if (
    keys.length !== CURSOR_KEYS.length ||
    keys.some((name, index) => name !== CURSOR_KEYS[index]) ||
    Object.values(record).some((value) => typeof value !== 'string')
  ) {
    fail('is not a cursor this API returned');
  }
  if (record[STATE_INDEX.partitionKey] !== state) fail(`belongs to another state than ${state}`);
  return record;
}

function rowFromItem(item: Item): OperatorOrderRow {
  const orderId = stringOf(item, StateAttr.OrderId, '(unknown)');
  return {
    orderId,
    processState: processStateOf(item, orderId),
    updatedAt: stringOf(item, StateAttr.UpdatedAt, orderId),
    ...(typeof item[StateAttr.CreatedAt] === 'string' && { createdAt: item[StateAttr.CreatedAt] as string }),
    failureCount: numberOr(item[StateAttr.FailureCount], 0),
    attempt: numberOr(item[StateAttr.Attempt], 0),
    ...(typeof item[StateAttr.ClientId] === 'string' && { clientId: item[StateAttr.ClientId] as string }),
  };
}

/** What inspect shows of a record: never the plan, the fingerprint nor more of a lock than its holder. */
export function recordViewFromItem(item: Item, orderId: string): OperatorRecordView {
  const lastError = asMap(item[StateAttr.LastError]);
  return {
    orderId,
    processState: processStateOf(item, orderId),
    attempt: numberOr(item[StateAttr.Attempt], 0),
    failureCount: numberOr(item[StateAttr.FailureCount], 0),
    compensationFailureCount: numberOr(item[StateAttr.CompensationFailureCount], 0),
    workflowVersion: numberOr(item[StateAttr.WorkflowVersion], 0),
    ...optional('clientId', item[StateAttr.ClientId]),
    ...optional('lockedBy', item[StateAttr.LockedBy]),
    createdAt: stringOf(item, StateAttr.CreatedAt, orderId),
    updatedAt: stringOf(item, StateAttr.UpdatedAt, orderId),
    ...(lastError !== undefined && {
      lastError: {
        source: String(lastError[LastErrorAttr.Source] ?? ''),
        error: String(lastError[LastErrorAttr.Error] ?? ''),
        cause: String(lastError[LastErrorAttr.Cause] ?? ''),
        at: String(lastError[LastErrorAttr.At] ?? ''),
      },
    }),
    steps: stepsOf(item, numberOr(item[StateAttr.WorkflowVersion], 0)),
    compensationLog: compensationLogOf(item),
    operatorLog: operatorLogOf(item),
  };
}

/**
 * The steps of the record's workflow version, in order; for a version this code does not know,
 * the steps the record holds (shown as stored, never interpreted), in catalogue order.
 */
function stepsOf(item: Item, workflowVersion: number): OperatorStepView[] {
  const stored = asMap(item[StateAttr.Steps]) ?? {};
  const steps = isKnownWorkflowVersion(workflowVersion)
    ? workflowSteps(workflowVersion)
    : ORDER_STEPS.filter(({ name }) => stored[name] !== undefined);
  return steps.map(({ name }) => {
    const step = asMap(stored[name]) ?? {};
    const status = step[StepAttr.Status];
    const confirmationId = asMap(step[StepAttr.Result])?.[StepResultAttr.ConfirmationId];
    return {
      name,
      status:
        typeof status === 'string' && STEP_STATUSES.has(status)
          ? (status as StepStatus)
          : StepStatus.NotStarted,
      ...optional('startedAt', step[StepAttr.StartedAt]),
      ...optional('completedAt', step[StepAttr.CompletedAt]),
      ...optional('endedAt', step[StepAttr.EndedAt]),
      ...optional('confirmationId', confirmationId),
    };
  });
}

/** The compensation log in the order compensation runs: descending Seq. */
function compensationLogOf(item: Item): OperatorCompensationView[] {
  const stored = asMap(item[StateAttr.CompensationLog]) ?? {};
  return Object.entries(stored)
    .map(([step, value]): OperatorCompensationView => {
      const entry = asMap(value) ?? {};
      const result = asMap(entry[CompensationAttr.Result]);
      return {
        step,
        seq: numberOr(entry[CompensationAttr.Seq], 0),
        ...optional('compensation', entry[CompensationAttr.Compensation]),
        ...optional('undoes', entry[CompensationAttr.Undoes]),
        ...optional('status', entry[CompensationAttr.Status]),
        ...(typeof entry[CompensationAttr.Uncertain] === 'boolean' && {
          uncertain: entry[CompensationAttr.Uncertain] as boolean,
        }),
        ...optional('confirmationId', entry[CompensationAttr.ConfirmationId]),
        ...optional('recordedAt', entry[CompensationAttr.RecordedAt]),
        ...optional('compensatingAt', entry[CompensationAttr.CompensatingAt]),
        ...optional('compensatedAt', entry[CompensationAttr.CompensatedAt]),
        ...(result !== undefined && { result }),
      };
    })
    .sort((left, right) => right.seq - left.seq || left.step.localeCompare(right.step));
}

function operatorLogOf(item: Item): OperatorLogView[] {
  const stored = item[StateAttr.OperatorLog];
  if (!Array.isArray(stored)) return [];
  return stored.map((value): OperatorLogView => {
    const entry = asMap(value) ?? {};
    const text = (name: string) => String(entry[name] ?? '');
    return {
      action: text(OperatorActionAttr.Action),
      by: text(OperatorActionAttr.By),
      reason: text(OperatorActionAttr.Reason),
      at: text(OperatorActionAttr.At),
      seenState: text(OperatorActionAttr.SeenState),
      seenUpdatedAt: text(OperatorActionAttr.SeenUpdatedAt),
      newState: text(OperatorActionAttr.NewState),
      ...(typeof entry[OperatorActionAttr.ResetFailureCount] === 'number' && {
        resetFailureCount: entry[OperatorActionAttr.ResetFailureCount] as number,
      }),
    };
  });
}

function processStateOf(item: Item, orderId: string): ProcessState {
  const value = item[StateAttr.ProcessState];
  if (typeof value !== 'string' || !PROCESS_STATES.has(value)) {
    throw new Error(
      `State record '${orderId}': ProcessState is ${JSON.stringify(value)}, not a ProcessState`,
    );
  }
  return value as ProcessState;
}

function stringOf(item: Item, attribute: string, orderId: string): string {
  const value = item[attribute];
  if (typeof value !== 'string') {
    throw new Error(`State record '${orderId}': ${attribute} must be a string, got ${JSON.stringify(value)}`);
  }
  return value;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function optional<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' ? ({ [key]: value } as Record<K, string>) : {};
}

function asMap(value: unknown): Item | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Item) : undefined;
}
