/**
 * The state record as DynamoDB stores it, both ways: a StateRecord to the item the starter creates,
 * an item (or a DueIndex projection) back to the record, every attribute checked on the way in, so
 * a record written by another version or by hand fails loudly rather than half-read. The store
 * (state-store.ts) and the tooling's seeding use it.
 */
import {
  COMPENSATION_NAMES,
  CompensationAttr,
  CompensationStatus,
  LastErrorAttr,
  type OperationName,
  ProcessState,
  STEP_NAMES,
  StateAttr,
  StepAttr,
  type StepName,
  StepStatus,
  SUPPORTED_STATE_SCHEMA_VERSIONS,
} from '../contracts';
import type { DueRecord } from '../domain/ports';
import {
  type CompensationEntry,
  type LastError,
  type StateRecord,
  type StepState,
  UnsupportedRecordVersion,
} from '../domain/state-record';

type Item = Record<string, unknown>;

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
    [StateAttr.AdmissionClientShard]: record.admissionClientShard,
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

export function lastErrorToItem(lastError: LastError): Item {
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
    ...optionalString(item, StateAttr.AdmissionClientShard, 'admissionClientShard'),
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

export function dueRecordFromItem(item: Item): DueRecord {
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

export function requireNumber(item: Item, attribute: string, orderId: string): number {
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
