/**
 * The supervisor role: the sweeps that page through the DueIndex within a time budget and apply,
 * with fenced conditional updates, what its rules (supervision-rules.ts) decide for each due record
 * (reset an expired attempt, fail it at the threshold, restart a Pending order nobody claimed, the
 * same three for compensations, or skip); the alert re-delivery pass; one scheduled run of both.
 */
import { type Clock, isoAt, type Sleep, type TimeBudget } from '../../shared/clock';
import { forEachLimited } from '../../shared/concurrency';
import { describeError } from '../../shared/errors';
import { DEFAULT_ALERT_REDELIVERY_GRACE_SECONDS, type WorkflowTimings } from '../contracts';
import { type DeliverySummary, deliverOutbox, emptyDeliverySummary } from './alert-outbox';
import type {
  AlertOutboxStore,
  DuePageCursor,
  DueRecord,
  EventLog,
  OutboxAlertPublisher,
  PendingOutboxCursor,
  PendingOutboxIndex,
  StartQueue,
  SupervisionStore,
} from './ports';
import { recordVersionProblem } from './state-record';
import { decideSupervision, type SupervisionDecision, type SupervisionTimings } from './supervision-rules';

export interface SupervisorDependencies {
  readonly store: SupervisionStore;
  readonly startQueue: StartQueue;
  /** Re-delivers the alerts the stream relay left in outboxes (DESIGN.md, Alert outbox). */
  readonly alerts: OutboxAlertPublisher;
  readonly outbox: AlertOutboxStore & PendingOutboxIndex;
  /** An outbox entry older than this is the supervisor's to deliver. @default DEFAULT_ALERT_REDELIVERY_GRACE_SECONDS */
  readonly alertRedeliveryGraceSeconds?: number;
  readonly clock: Clock;
  readonly timings: SupervisionTimings & Pick<WorkflowTimings, 'supervisorPageSize'>;
  /** Every DueShard value; each sweep queries all of them. */
  readonly shards: readonly string[];
  readonly log: EventLog;
  /** Carried by the start messages and alerts this run sends, to trace them back to it. */
  readonly correlationId: string;
  /** The workflow versions deployed here; a due record of another version is left untouched. */
  readonly liveWorkflowVersions: readonly number[];
  /** Records handled at once within a page: bounded so a large page cannot flood the store. */
  readonly recordConcurrency?: number;
}

/** Resets, failures and restarts count compensation attempts too (the logs tell them apart). */
export interface SweepSummary {
  examined: number;
  resets: number;
  failures: number;
  restarts: number;
  /** Conditional updates that found the record changed (another supervisor or the execution won). */
  lostRaces: number;
  skipped: number;
  pages: number;
  /** Start messages that could not be sent after the record was updated. */
  startMessageFailures: number;
  /** Outbox alerts the bus did not take (or not removed after): left for the next run. */
  alertFailures: number;
  /** Outbox alerts the supervisor put on the bus (the stream relay had not). */
  alertsRedelivered: number;
  /** Shard queries or record updates that failed unexpectedly (retried on the next sweep). */
  errors: number;
  /** Due records of a workflow or schema version not live here: left untouched (UnsupportedRecordVersions). */
  unsupportedVersions: number;
  stoppedByBudget: boolean;
}

export function emptySweepSummary(): SweepSummary {
  return {
    examined: 0,
    resets: 0,
    failures: 0,
    restarts: 0,
    lostRaces: 0,
    skipped: 0,
    pages: 0,
    startMessageFailures: 0,
    alertFailures: 0,
    alertsRedelivered: 0,
    errors: 0,
    unsupportedVersions: 0,
    stoppedByBudget: false,
  };
}

const DEFAULT_RECORD_CONCURRENCY = 8;

/**
 * One pass over the DueIndex: every shard, page by page (Query with CompleteBy <= now, never a
 * Scan), stopping as soon as the time budget is spent. What is left is picked up by the next sweep:
 * records stay in the index until a transition moves them.
 */
export async function sweepDueRecords(
  deps: SupervisorDependencies,
  budget: TimeBudget,
): Promise<SweepSummary> {
  const summary = emptySweepSummary();
  for (const shard of deps.shards) {
    let cursor: DuePageCursor | undefined;
    do {
      if (budget.remainingMillis() <= 0) {
        summary.stoppedByBudget = true;
        return summary;
      }
      const now = deps.clock.now();
      let page: Awaited<ReturnType<SupervisionStore['queryDue']>>;
      try {
        page = await deps.store.queryDue(shard, now, deps.timings.supervisorPageSize, cursor);
      } catch (error) {
        summary.errors += 1;
        deps.log.error('DueIndex query failed; skipping the rest of this shard until the next sweep', {
          shard,
          error: describeError(error),
        });
        break;
      }
      summary.pages += 1;
      await forEachLimited(page.records, deps.recordConcurrency ?? DEFAULT_RECORD_CONCURRENCY, (record) =>
        superviseRecord(record, now, deps, summary),
      );
      cursor = page.next;
    } while (cursor !== undefined);
  }
  return summary;
}

async function superviseRecord(
  record: DueRecord,
  now: number,
  deps: SupervisorDependencies,
  summary: SweepSummary,
): Promise<void> {
  summary.examined += 1;
  const decision = decideSupervision(record, now, deps.timings);
  const logContext = {
    orderId: record.orderId,
    processState: record.processState,
    lockedBy: record.lockedBy,
    completeBy: record.completeBy,
    failureCount: record.failureCount,
    compensationFailureCount: record.compensationFailureCount,
    runningStep: record.runningStep,
    correlationId: deps.correlationId,
  };
  try {
    if (decision.kind !== 'skip' && !(await mayActOn(record, deps, summary, logContext))) return;
    await applyDecision(record, decision, now, deps, summary, logContext);
  } catch (error) {
    summary.errors += 1;
    deps.log.error('Supervising a record failed; the next sweep retries it', {
      ...logContext,
      error: describeError(error),
    });
  }
}

/**
 * Whether this deployment may act on a due record: its versions are read first (the DueIndex
 * projects neither; one small read, only for records the supervisor is about to change, which are
 * the rare expired or unclaimed ones). A record of a retired or future workflow version, or of an
 * unsupported schema, is left exactly as it is and reported on every sweep until an operator acts:
 * resetting it would only send it to a starter that refuses it, and failing it would misjudge an
 * order another deployment may still run.
 */
async function mayActOn(
  record: DueRecord,
  deps: SupervisorDependencies,
  summary: SweepSummary,
  logContext: Record<string, unknown>,
): Promise<boolean> {
  const versions = await deps.store.versionsOf(record.orderId);
  if (versions === undefined) {
    summary.skipped += 1;
    return false;
  }
  const problem = recordVersionProblem(versions, deps.liveWorkflowVersions);
  if (problem === undefined) return true;
  summary.unsupportedVersions += 1;
  deps.log.error('Supervisor left a record of a version this deployment does not run untouched', {
    ...logContext,
    error: 'UnsupportedRecordVersion',
    detail: problem,
  });
  return false;
}

/**
 * Applies one supervision decision to the record as read: each transition is conditional on that
 * read (a lost race changes nothing), and a reset or restart sends the order to the starter again.
 * The alerts of fail and fail-compensation were written with their transition (AlertOutbox).
 */
async function applyDecision(
  record: DueRecord,
  decision: SupervisionDecision,
  now: number,
  deps: SupervisorDependencies,
  summary: SweepSummary,
  logContext: Record<string, unknown>,
): Promise<void> {
  switch (decision.kind) {
    case 'skip':
      summary.skipped += 1;
      if (decision.reason === 'inconsistent') {
        deps.log.error('Supervisor found an inconsistent record; leaving it for an operator', {
          ...logContext,
          detail: decision.detail,
        });
      }
      return;
    case 'reset': {
      const result = await deps.store.resetExpired(record, {
        failureCount: decision.failureCount,
        completeBy: decision.completeBy,
        at: now,
      });
      if (result === 'lost') return lostRace(deps, summary, logContext, 'reset');
      summary.resets += 1;
      deps.log.warn('Expired attempt reset to Pending', {
        ...logContext,
        newFailureCount: decision.failureCount,
        backoffSeconds: decision.backoffSeconds,
      });
      await sendStart(deps, summary, record.orderId, 'supervisor-retry', decision.startDelaySeconds);
      return;
    }
    case 'fail': {
      const result = await deps.store.failExpired(record, {
        failureCount: decision.failureCount,
        lastError: decision.lastError,
        at: now,
        correlationId: deps.correlationId,
      });
      if (result === 'lost') return lostRace(deps, summary, logContext, 'fail');
      summary.failures += 1;
      deps.log.error('Order failed: attempts exhausted', {
        ...logContext,
        newFailureCount: decision.failureCount,
      });
      // The OrderFailed alert was written with the transition (AlertOutbox); the outbox delivers it.
      return;
    }
    case 'restart': {
      const result = await deps.store.restartPending(record, { completeBy: decision.completeBy, at: now });
      if (result === 'lost') return lostRace(deps, summary, logContext, 'restart');
      summary.restarts += 1;
      deps.log.warn('Pending order was not claimed in time; re-queued', {
        ...logContext,
        claimBy: isoAt(decision.completeBy),
      });
      await sendStart(deps, summary, record.orderId, 'supervisor-restart', 0);
      return;
    }
    case 'reset-compensation': {
      const result = await deps.store.resetExpiredCompensation(record, {
        compensationFailureCount: decision.compensationFailureCount,
        completeBy: decision.completeBy,
        at: now,
      });
      if (result === 'lost') return lostRace(deps, summary, logContext, 'reset-compensation');
      summary.resets += 1;
      deps.log.warn('Expired compensation attempt unlocked for a new attempt', {
        ...logContext,
        newCompensationFailureCount: decision.compensationFailureCount,
        backoffSeconds: decision.backoffSeconds,
      });
      await sendStart(deps, summary, record.orderId, 'supervisor-retry', decision.startDelaySeconds);
      return;
    }
    case 'fail-compensation': {
      const result = await deps.store.failExpiredCompensation(record, {
        compensationFailureCount: decision.compensationFailureCount,
        lastError: decision.lastError,
        at: now,
        correlationId: deps.correlationId,
      });
      if (result === 'lost') return lostRace(deps, summary, logContext, 'fail-compensation');
      summary.failures += 1;
      deps.log.error('Compensation failed: compensation attempts exhausted', {
        ...logContext,
        newCompensationFailureCount: decision.compensationFailureCount,
      });
      // The CompensationFailed alert was written with the transition; the outbox delivers it.
      return;
    }
    case 'restart-compensation': {
      const result = await deps.store.restartCompensation(record, {
        completeBy: decision.completeBy,
        at: now,
      });
      if (result === 'lost') return lostRace(deps, summary, logContext, 'restart-compensation');
      summary.restarts += 1;
      deps.log.warn('Compensation was not claimed in time; re-queued', {
        ...logContext,
        claimBy: isoAt(decision.completeBy),
      });
      await sendStart(deps, summary, record.orderId, 'supervisor-restart', 0);
      return;
    }
  }
}

function lostRace(
  deps: SupervisorDependencies,
  summary: SweepSummary,
  logContext: Record<string, unknown>,
  transition: string,
): void {
  summary.lostRaces += 1;
  deps.log.info('Record changed since it was read; transition not applied', { ...logContext, transition });
}

async function sendStart(
  deps: SupervisorDependencies,
  summary: SweepSummary,
  orderId: string,
  reason: 'supervisor-retry' | 'supervisor-restart',
  delaySeconds: number,
): Promise<void> {
  try {
    await deps.startQueue.send({ orderId, reason, correlationId: deps.correlationId }, delaySeconds);
  } catch (error) {
    // The record is Pending with a CompleteBy ahead: when it passes unclaimed, a later sweep restarts it.
    summary.startMessageFailures += 1;
    deps.log.error('Start message not sent; a later sweep will re-queue the order', {
      orderId,
      reason,
      error: describeError(error),
    });
  }
}

/**
 * The backstop of the alert outbox: every record of the AlertOutboxIndex whose last entry is older
 * than the grace gets its alerts delivered (publish, then remove), page by page within the budget.
 * The stream relay normally delivered them long before; what is left is what it gave up on (its
 * retries ran out while the bus was down). A failure is counted and left for the next run.
 */
export async function redeliverAlerts(
  deps: SupervisorDependencies,
  budget: TimeBudget,
): Promise<SweepSummary> {
  const summary = emptySweepSummary();
  const graceSeconds = deps.alertRedeliveryGraceSeconds ?? DEFAULT_ALERT_REDELIVERY_GRACE_SECONDS;
  const writtenBefore = isoAt(deps.clock.now() - graceSeconds * 1000);
  const delivery: DeliverySummary = emptyDeliverySummary();
  let cursor: PendingOutboxCursor | undefined;
  do {
    if (budget.remainingMillis() <= 0) {
      summary.stoppedByBudget = true;
      break;
    }
    let page: Awaited<ReturnType<PendingOutboxIndex['queryPending']>>;
    try {
      page = await deps.outbox.queryPending(writtenBefore, deps.timings.supervisorPageSize, cursor);
    } catch (error) {
      summary.errors += 1;
      deps.log.error('AlertOutboxIndex query failed; the next run retries', { error: describeError(error) });
      break;
    }
    for (const record of page.records) {
      const deliveredBefore = delivery.delivered;
      try {
        if (Object.keys(record.outbox).length === 0) {
          // Delivered, but its removal from the index was lost: finish it.
          await deps.outbox.clearIndexIfEmpty(record.orderId);
          continue;
        }
        await deliverOutbox(
          record.orderId,
          record.outbox,
          { publisher: deps.alerts, store: deps.outbox, log: deps.log },
          delivery,
        );
      } catch (error) {
        summary.alertFailures += 1;
        deps.log.error('Alert not re-delivered; the next run retries', {
          orderId: record.orderId,
          since: record.since,
          correlationId: deps.correlationId,
          error: describeError(error),
        });
      }
      summary.alertsRedelivered += delivery.delivered - deliveredBefore;
    }
    cursor = page.next;
  } while (cursor !== undefined);
  return summary;
}

export interface SupervisorRunOptions {
  /** Sweeps this invocation should make, spaced evenly across the schedule interval. */
  readonly sweeps: number;
  readonly intervalMillis: number;
  readonly sleep: Sleep;
  /**
   * Called after each sweep with that sweep's summary (the handler reports its metrics and
   * gauges there, so they arrive every sweep rather than once per run). It must not throw.
   */
  readonly afterSweep?: (sweep: SweepSummary) => Promise<void>;
  /**
   * Called once with the summary of the run's alert re-delivery pass (before the sweeps), so its
   * AlertPublishFailures are reported as soon as they happen, like a sweep's. It must not throw.
   */
  readonly afterRedelivery?: (redelivery: SweepSummary) => Promise<void>;
}

export interface SupervisorRunSummary extends SweepSummary {
  sweeps: number;
}

/**
 * Runs several sweeps per invocation, the i-th starting i x (interval / sweeps) after the first, so
 * a once-a-minute schedule still supervises every few seconds. No sweep starts once the budget is
 * spent, and the run never sleeps past the budget.
 */
export async function runSupervisor(
  deps: SupervisorDependencies,
  budget: TimeBudget,
  options: SupervisorRunOptions,
): Promise<SupervisorRunSummary> {
  const total: SupervisorRunSummary = { ...emptySweepSummary(), sweeps: 0 };
  // Once per run, first: an outage of the bus must not also wait for the sweeps.
  const redelivery = await redeliverAlerts(deps, budget);
  addInto(total, redelivery);
  await options.afterRedelivery?.(redelivery);
  const startedAt = deps.clock.now();
  const spacing = options.intervalMillis / Math.max(1, options.sweeps);
  for (let index = 0; index < options.sweeps; index += 1) {
    const wait = startedAt + index * spacing - deps.clock.now();
    if (wait > 0) {
      if (wait >= budget.remainingMillis()) {
        break;
      }
      await options.sleep(wait);
    }
    if (budget.remainingMillis() <= 0) {
      total.stoppedByBudget = true;
      break;
    }
    const sweep = await sweepDueRecords(deps, budget);
    total.sweeps += 1;
    addInto(total, sweep);
    await options.afterSweep?.(sweep);
    if (sweep.stoppedByBudget) {
      break;
    }
  }
  return total;
}

function addInto(total: SupervisorRunSummary, sweep: SweepSummary): void {
  total.examined += sweep.examined;
  total.resets += sweep.resets;
  total.failures += sweep.failures;
  total.restarts += sweep.restarts;
  total.lostRaces += sweep.lostRaces;
  total.skipped += sweep.skipped;
  total.pages += sweep.pages;
  total.startMessageFailures += sweep.startMessageFailures;
  total.alertFailures += sweep.alertFailures;
  total.alertsRedelivered += sweep.alertsRedelivered;
  total.errors += sweep.errors;
  total.unsupportedVersions += sweep.unsupportedVersions;
  total.stoppedByBudget ||= sweep.stoppedByBudget;
}
