import type { StartOrderMessage } from '../contracts';
import { type ClaimTimings, decideClaim, workflowExecutionInput } from './claim';
import type { Clock } from './clock';
import { UnknownOrderError } from './errors';
import type { ClaimStore, StateRecordReader, WorkflowStarter } from './ports';

export interface StartDependencies {
  readonly states: StateRecordReader & ClaimStore;
  readonly workflow: WorkflowStarter;
  readonly clock: Clock;
  readonly timings: ClaimTimings;
}

export type StartOutcome =
  | {
      readonly kind: 'started';
      readonly instanceId: string;
      readonly attempt: number;
      /** True when this call won the claim; false when it re-issued the start of an earlier claim. */
      readonly claimed: boolean;
      /** True when Step Functions already had an execution of that name. */
      readonly alreadyStarted: boolean;
    }
  | { readonly kind: 'claim-lost'; readonly instanceId: string }
  | { readonly kind: 'skipped'; readonly reason: string; readonly detail: string };

/**
 * Claims a Pending order for its next attempt and starts the scheduler execution named after the
 * attempt. The claim comes first so that only one starter owns an attempt; the execution name makes
 * a repeated start of that attempt (redelivery, a crash between claim and start) a no-op.
 */
export async function startOrder(message: StartOrderMessage, deps: StartDependencies): Promise<StartOutcome> {
  const record = await deps.states.get(message.orderId);
  if (record === undefined) {
    throw new UnknownOrderError(message.orderId);
  }
  const now = deps.clock.now();
  const decision = decideClaim(record, now, deps.timings);

  if (decision.kind === 'skip') {
    return { kind: 'skipped', reason: decision.reason, detail: decision.detail };
  }

  let claimed = false;
  if (decision.kind === 'claim') {
    const result = await deps.states.claim({
      orderId: record.orderId,
      seenAttempt: decision.seenAttempt,
      attempt: decision.attempt,
      instanceId: decision.instanceId,
      claimableUntilCompleteBy: decision.claimableUntilCompleteBy,
      workflowVersion: decision.workflowVersion,
      plan: decision.plan,
      completeBy: decision.completeBy,
      at: now,
    });
    if (result === 'lost') {
      return { kind: 'claim-lost', instanceId: decision.instanceId };
    }
    claimed = true;
  }

  const started = await deps.workflow.start({
    name: decision.instanceId,
    input: workflowExecutionInput({
      orderId: record.orderId,
      instanceId: decision.instanceId,
      attempt: decision.attempt,
      correlationId: message.correlationId,
      workflowVersion: decision.workflowVersion,
    }),
  });
  return {
    kind: 'started',
    instanceId: decision.instanceId,
    attempt: decision.attempt,
    claimed,
    alreadyStarted: started === 'already-started',
  };
}
