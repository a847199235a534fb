/**
 * The order campaign's invariants on effects, read from the downstream ledger against the records:
 * calls within the retry budget, one effect per key, one per step of a Processed order, every effect
 * of a Compensated order undone exactly once in reverse order, none left by a Processed one.
 */
import {
  CompensationStatus,
  ORDER_STEPS,
  operationKey,
  ProcessState,
  StepStatus,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { LedgerEffectSnapshot, LedgerUndoSnapshot, RecordSnapshot } from '../../harness/snapshots';
import { countBy } from '../common/verdicts';
import type { CampaignSnapshot } from './campaign-snapshot';

/** Which downstream service performs each step. */
export const SERVICE_OF_STEP = new Map<string, string>(ORDER_STEPS.map((step) => [step.name, step.service]));

/** `<orderId>:<step>` is the stable key; anything after a further ':' is not part of it. */
export function parseIdempotencyKey(
  key: string,
): { orderId: string; step: string; stable: boolean } | undefined {
  const [orderId, step, ...rest] = key.split(':');
  if (!orderId || !step) return undefined;
  return { orderId, step, stable: rest.length === 0 };
}

/**
 * The retry budget, measured at the dependency: the downstream's ledger counts every call per key.
 * Per order and operation (keys that only differ after the stable `<orderId>:<operation>` are one
 * operation), the calls received stay within the order's RetryBudget (the deployment's for a record
 * without one) and within what the agents reserved in CallsMade, since each call is reserved first.
 */
export function callsWithinBudget(
  snapshot: CampaignSnapshot,
  records: Map<string, RecordSnapshot>,
): string[] {
  const violations: string[] = [];
  const received = new Map<string, { orderId: string; operation: string; calls: number }>();
  for (const entry of snapshot.calls) {
    const parsed = parseIdempotencyKey(entry.idempotencyKey);
    if (!parsed) continue;
    const key = `${parsed.orderId}:${parsed.step}`;
    const sum = received.get(key) ?? { orderId: parsed.orderId, operation: parsed.step, calls: 0 };
    received.set(key, { ...sum, calls: sum.calls + entry.calls });
  }
  for (const [key, { orderId, operation, calls }] of received) {
    const record = records.get(orderId);
    if (!record) continue;
    const budget = record.retryBudget ?? snapshot.retryBudget;
    const reserved = record.callsMade?.[operation] ?? 0;
    if (calls > budget) violations.push(`${key}: ${calls} calls received, RetryBudget ${budget}`);
    if (calls > reserved)
      violations.push(`${key}: ${calls} calls received, ${reserved} reserved in CallsMade`);
  }
  for (const record of snapshot.finalRecords) {
    const budget = record.retryBudget ?? snapshot.retryBudget;
    for (const [operation, reserved] of Object.entries(record.callsMade ?? {})) {
      if (reserved > budget) {
        violations.push(`${record.orderId}:${operation}: CallsMade ${reserved} > RetryBudget ${budget}`);
      }
    }
  }
  return violations;
}

export function oneEffectPerKey(snapshot: CampaignSnapshot): string[] {
  const violations: string[] = [];
  const byRawKey = countBy(snapshot.ledger, (effect) => `${effect.service} ${effect.idempotencyKey}`);
  for (const [key, count] of byRawKey) {
    if (count > 1) violations.push(`${key}: ${count} effects under one ledger key`);
  }
  const byOperation = new Map<string, string[]>();
  for (const effect of snapshot.ledger) {
    const parsed = parseIdempotencyKey(effect.idempotencyKey);
    if (!parsed) {
      violations.push(
        `${effect.service} ${effect.idempotencyKey}: effect under a key that names no order and step`,
      );
      continue;
    }
    const operation = `${parsed.orderId}:${parsed.step}`;
    byOperation.set(operation, [...(byOperation.get(operation) ?? []), effect.idempotencyKey]);
  }
  for (const [operation, keys] of byOperation) {
    if (keys.length > 1) {
      violations.push(`${operation}: ${keys.length} effects (keys ${[...new Set(keys)].join(', ')})`);
    }
  }
  return violations;
}

export function processedOneEffectPerStep(snapshot: CampaignSnapshot): string[] {
  const effectsByOrder = new Map<string, LedgerEffectSnapshot[]>();
  for (const effect of snapshot.ledger) {
    const parsed = parseIdempotencyKey(effect.idempotencyKey);
    if (!parsed) continue;
    effectsByOrder.set(parsed.orderId, [...(effectsByOrder.get(parsed.orderId) ?? []), effect]);
  }
  const violations: string[] = [];
  for (const record of snapshot.finalRecords) {
    if (record.processState !== ProcessState.Processed) continue;
    const effects = effectsByOrder.get(record.orderId) ?? [];
    // The record's Steps map holds exactly the steps of its workflow version.
    for (const step of ORDER_STEPS.filter((candidate) => record.steps[candidate.name] !== undefined)) {
      const ofStep = effects.filter(
        (effect) =>
          parseIdempotencyKey(effect.idempotencyKey)?.step === step.name && effect.service === step.service,
      );
      if (ofStep.length !== 1) {
        violations.push(
          `${record.orderId}: Processed with ${ofStep.length} ${step.service} effects for ${step.name}`,
        );
      }
    }
    const misrouted = effects.filter(
      (effect) =>
        SERVICE_OF_STEP.get(parseIdempotencyKey(effect.idempotencyKey)?.step ?? '') !== effect.service,
    );
    for (const effect of misrouted) {
      violations.push(
        `${record.orderId}: effect ${effect.idempotencyKey} recorded by the wrong service ${effect.service}`,
      );
    }
  }
  return violations;
}

/**
 * Each Compensated order: every step that was done (an effect in the ledger, or Completed in the
 * record, or a log entry written when it completed) is undone exactly once, by the step's own
 * compensation key, the record says so, and the undos ran in reverse step order (the ledger's undo
 * times, else the log's CompensatedAt). Every order: an undo that says `undone: true` undid an
 * effect that exists, and one that says `undone: false` left no effect standing under its key.
 */
export function compensationExact(snapshot: CampaignSnapshot): string[] {
  const violations: string[] = [];
  const effectByKey = new Map(
    snapshot.ledger.map((effect) => [`${effect.service} ${effect.idempotencyKey}`, effect]),
  );
  const undosByTarget = new Map<string, LedgerUndoSnapshot[]>();
  for (const undo of snapshot.undos) {
    const target = `${undo.service} ${undo.undoes}`;
    undosByTarget.set(target, [...(undosByTarget.get(target) ?? []), undo]);
    const effect = effectByKey.get(target);
    const step = parseIdempotencyKey(undo.undoes);
    const definition = ORDER_STEPS.find((candidate) => candidate.name === step?.step);
    if (!step || !definition || definition.service !== undo.service) {
      violations.push(
        `${undo.service} ${undo.idempotencyKey}: undoes ${undo.undoes}, which names no step of ${undo.service}`,
      );
      continue;
    }
    const expectedKey = operationKey(step.orderId, definition.compensation.name);
    if (undo.idempotencyKey !== expectedKey) {
      violations.push(
        `${undo.service} ${undo.idempotencyKey}: undoes ${undo.undoes} under a key other than ${expectedKey}`,
      );
    }
    if (undo.undone && effect?.undoneBy !== undo.idempotencyKey) {
      violations.push(
        `${undo.idempotencyKey}: undone: true, but ${undo.undoes} has no ${undo.service} effect it undid (nothing was done)`,
      );
    }
    if (!undo.undone && effect !== undefined && effect.undoneBy === undefined) {
      violations.push(`${undo.idempotencyKey}: undone: false, yet the effect ${undo.undoes} stands`);
    }
  }
  for (const record of snapshot.finalRecords) {
    if (record.processState !== ProcessState.Compensated) continue;
    const undoneSteps: Array<{ step: string; at: number | undefined }> = [];
    for (const step of ORDER_STEPS.filter((candidate) => record.steps[candidate.name] !== undefined)) {
      const key = operationKey(record.orderId, step.name);
      const effect = effectByKey.get(`${step.service} ${key}`);
      const status = record.steps[step.name];
      const entry = record.compensationLog?.[step.name];
      const recordedDone =
        status === StepStatus.Completed || (entry !== undefined && entry.uncertain !== true);
      if (entry !== undefined && entry.status !== CompensationStatus.Compensated) {
        violations.push(
          `${record.orderId}: Compensated, but the log entry of ${step.name} is ${entry.status}`,
        );
      }
      if (effect === undefined) {
        if (recordedDone) {
          violations.push(
            `${record.orderId}: ${step.name} completed in the record, but no ${step.service} effect is in the ledger`,
          );
        }
        continue;
      }
      const undos = (undosByTarget.get(`${step.service} ${key}`) ?? []).filter((undo) => undo.undone);
      if (undos.length !== 1 || effect.undoneBy === undefined) {
        violations.push(
          `${record.orderId}: ${step.name} was done (${step.service} effect) and undone ${effect.undoneBy === undefined ? 0 : undos.length} times`,
        );
        continue;
      }
      if (status !== StepStatus.Compensated) {
        violations.push(`${record.orderId}: ${step.name} undone, but the record says ${status ?? 'nothing'}`);
      }
      undoneSteps.push({ step: step.name, at: undos[0]?.at ?? entry?.compensatedAt });
    }
    for (let later = 1; later < undoneSteps.length; later += 1) {
      const first = undoneSteps[later - 1];
      const second = undoneSteps[later];
      if (first?.at === undefined || second?.at === undefined) continue;
      if (second.at > first.at) {
        violations.push(
          `${record.orderId}: ${first.step} undone before ${second.step} (${second.at - first.at} ms earlier): not in reverse step order`,
        );
      }
    }
  }
  return violations;
}

/** A Processed order never started compensating: no log entry past Recorded, no undo downstream. */
export function noProcessedWithCompensation(snapshot: CampaignSnapshot): string[] {
  const undoneOrders = countBy(snapshot.undos, (undo) => parseIdempotencyKey(undo.undoes)?.orderId ?? '?');
  const violations: string[] = [];
  for (const record of snapshot.finalRecords) {
    if (record.processState !== ProcessState.Processed) continue;
    for (const [step, entry] of Object.entries(record.compensationLog ?? {})) {
      if (entry.status !== CompensationStatus.Recorded) {
        violations.push(`${record.orderId}: Processed with the log entry of ${step} ${entry.status}`);
      }
    }
    const undos = undoneOrders.get(record.orderId) ?? 0;
    if (undos > 0) violations.push(`${record.orderId}: Processed with ${undos} undo(s) in the ledger`);
  }
  return violations;
}
