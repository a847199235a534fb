/**
 * The compact shape's start without LoadStateRecord (contracts/workflows.ts, DESIGN.md "Compact
 * shape"): the starter has just claimed the record (or read the claim it resumes), so it hands the
 * execution what the state machine reads of it, at `$.record.Item` in DynamoDB's JSON as GetItem
 * returns it, and the execution's first state is CheckLock. Only the attributes the state machine
 * reads (lib/scheduler-agent-supervisor/scheduler/execution-data.ts RecordPath): the lock and state
 * it routes on, each step's status, the plan of deadlines, each compensation log entry's status, and
 * the compensation failure count. Built from the record and the claim, never from the clock, so a
 * re-issued start of the same claim sends the same input.
 */
import { CompensationAttr, ProcessState, StateAttr, StepAttr } from '../contracts';
import type { StateRecord } from './state-record';

/** What of the starter's decision (ClaimDecision, ./starter.ts) the execution record takes. */
export type ExecutionClaim =
  | {
      readonly kind: 'claim';
      readonly instanceId: string;
      readonly claimKind: 'steps' | 'compensation';
      readonly plan: Readonly<Partial<Record<string, number>>>;
    }
  | { readonly kind: 'resume'; readonly instanceId: string };

/** A DynamoDB attribute value of the few shapes the execution record holds. */
type AttributeValue =
  | { readonly S: string }
  | { readonly N: string }
  | { readonly M: Readonly<Record<string, AttributeValue>> };

const text = (value: string): AttributeValue => ({ S: value });
const number = (value: number): AttributeValue => ({ N: String(value) });
const map = (entries: Readonly<Record<string, AttributeValue>>): AttributeValue => ({ M: entries });

/**
 * The record the execution of `decision` starts from: the claim's lock, state and plan over what the
 * starter read (a claim), or the record as it is (a resumed claim, whose lock and plan it holds).
 */
export function executionRecordItem(
  record: StateRecord,
  decision: ExecutionClaim,
): Readonly<Record<string, AttributeValue>> {
  const claimed =
    decision.kind === 'claim'
      ? {
          lockedBy: decision.instanceId,
          processState:
            decision.claimKind === 'steps' ? ProcessState.Processing : ProcessState.CompensationInProgress,
          plan: decision.plan,
        }
      : { lockedBy: decision.instanceId, processState: record.processState, plan: record.plan ?? {} };
  const defined = <T>(entries: readonly [string, T | undefined][]) =>
    entries.filter((entry): entry is [string, T] => entry[1] !== undefined);
  return {
    [StateAttr.LockedBy]: text(claimed.lockedBy),
    [StateAttr.ProcessState]: text(claimed.processState),
    [StateAttr.Steps]: map(
      Object.fromEntries(
        defined(Object.entries(record.steps)).map(([step, state]) => [
          step,
          map({ [StepAttr.Status]: text(state.status) }),
        ]),
      ),
    ),
    [StateAttr.Plan]: map(
      Object.fromEntries(
        defined(Object.entries(claimed.plan)).map(([operation, at]) => [operation, number(at)]),
      ),
    ),
    [StateAttr.CompensationLog]: map(
      Object.fromEntries(
        defined(Object.entries(record.compensationLog)).map(([step, entry]) => [
          step,
          map({ [CompensationAttr.Status]: text(entry.status) }),
        ]),
      ),
    ),
    [StateAttr.CompensationFailureCount]: number(record.compensationFailureCount),
  };
}
