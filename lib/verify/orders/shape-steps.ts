/**
 * The steps that differ by workflow shape (contracts/workflows.ts), in Promela: who records a step's
 * completion, what a spent budget leads to, and a classic execution's own load and MarkRunning.
 * The actors (actors.ts) splice them in, so each shape's difference is written once, here.
 */
import type { ActorsContext, CallTransition } from './actors-context';

/**
 * What a lean or classic execution does with a success (a compact one's agent recorded it): its
 * MarkCompleted, which in the lean shape hands CompleteBy over to the next step.
 */
function executionCompletion({ call, shape }: ActorsContext): string {
  const completed = `
              atomic { ${call('markStepCompleted', { instanceId: 'id', result: '0', seq: 's', compensation: '0', undoes: '0', confirmationId: '0', now: 'tick' }, { step: 's', writer: 'id' })}
                printf("@@ execution %d: MarkCompleted step %d: %d\\n", id, s, ok) }`;
  const handingOver = `
              atomic { ${call('markStepCompletedHandingOver', { instanceId: 'id', result: '0', seq: 's', compensation: '0', undoes: '0', confirmationId: '0', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
                printf("@@ execution %d: MarkCompleted step %d, handing over: %d\\n", id, s, ok) }`;
  return `${
    shape === 'lean'
      ? `
           if
           :: s < STEPS - 1 ->${handingOver}
           :: else ->${completed}
           fi;`
      : `${completed};`
  }
           if :: !ok -> printf("@@ execution %d is fenced out\\n", id); goto finish :: else -> skip fi;`;
}

/** A spent budget: uncertain in the compact shape (the fix); a refusal in the lean and classic ones (their hole). */
function budgetSpent({ call, shape }: ActorsContext): string {
  return shape === 'compact'
    ? `
           /* Agent.RetryBudgetExhausted: its calls were made, one may have had its effect. */
           atomic {
             ${call('beginCompensationUncertain', { instanceId: 'id', lastError: '0', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
             printf("@@ execution %d: step %d's budget spent, BeginCompensationUncertain: %d\\n", id, s, ok) }
           if :: ok -> force = 1; s++; goto chain :: else -> goto finish fi`
    : `
           /* v1 to v4 catch Agent.RetryBudgetExhausted as a refusal (DESIGN.md "Compact shape") */
           atomic {
             ${call('beginCompensation', { instanceId: 'id', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
             printf("@@ execution %d: step %d's budget spent, BeginCompensation: %d\\n", id, s, ok) }
           if :: ok -> goto compensation :: else -> goto finish fi`;
}

/** A classic execution's LoadStateRecord and CheckLock: the record as it is now, its lock its own. */
function classicLoad(): string {
  return `
  atomic {
    in_ps[id] = (r_LockedBy == id -> r_ProcessState : 0);
    for (k : 0 .. STEPS - 1) {
      in_StepStatus[id * STEPS + k] = r_StepStatus[k]; in_Log[id * STEPS + k] = r_Log[k];
      in_LogStatus[id * STEPS + k] = r_LogStatus[k]
    }
    k = 0;
    printf("@@ execution %d loads the record: %e, locked by %d\\n", id, r_ProcessState, r_LockedBy) }`;
}

/** A classic execution's <Step>.MarkRunning, before its request. */
function classicMarkRunning({ call }: ActorsContext): string {
  return `
        atomic { ${call('markStepRunning', { instanceId: 'id', runningStep: 's + 1', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
          printf("@@ execution %d: MarkRunning step %d: %d\\n", id, s, ok) }
        if :: !ok -> printf("@@ execution %d is fenced out\\n", id); goto finish :: else -> skip fi;`;
}

/** A compact agent records its step Completed (the last: the order Processed) before it answers. */
function agentCompletion(call: CallTransition): string {
  return `     if
     :: a == PERFORM && s == STEPS - 1 ->
        atomic { ${call('completeOrder', { instanceId: 'id', result: '0', seq: 's', compensation: '0', undoes: '0', confirmationId: '0', now: 'tick' }, { step: 's', writer: 'id' })}
          k = (ok || r_StepStatus[s] == S_Completed -> R_SUCCESS : R_FENCED);
          printf("@@ agent records step %d completed and the order Processed: %d\\n", s, ok) }
     :: a == PERFORM && s < STEPS - 1 ->
        atomic {           ${call('completeStep', { instanceId: 'id', result: '0', seq: 's', compensation: '0', undoes: '0', confirmationId: '0', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
          k = (ok || r_StepStatus[s] == S_Completed -> R_SUCCESS : R_FENCED);
          printf("@@ agent records step %d completed: %d\\n", s, ok) }
     :: else -> k = R_SUCCESS
     fi;`;
}

/** The shape-specific steps, by name. */
export const SHAPE_STEPS = {
  executionCompletion,
  budgetSpent,
  classicLoad,
  classicMarkRunning,
  agentCompletion,
};
