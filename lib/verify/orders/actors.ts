/**
 * The actors of the orders protocol and their environment, in Promela: the starter, the executions
 * of the compact or lean workflow shape (contracts/workflows.ts), the agents and the remote services
 * behind them, the supervisor, the operator and a clock. Their control flow follows the code (named in each
 * comment); every write they make is a transition of the table, bound by name through `call`, so a
 * guard or an update is never written here. Faults are nondeterministic choices within the bounds:
 * any delay, order and timing is explored.
 */
import type { ActorsContext } from './actors-context';
import { SHAPE_STEPS } from './shape-steps';

/** The reply codes of a task token. */
export const REPLY_DEFINES = `#define R_SUCCESS 1
#define R_PERMANENT 2
#define R_FENCED 3
#define R_TRANSIENT 4
#define R_EXHAUSTED 5
#define PERFORM 0
#define COMPENSATE 1`;

function starter({ call }: ActorsContext): string {
  return `
/* The starter (domain/starter.ts startOrder): a start message is a hint; it claims an unlocked
   Pending or CompensationInProgress record for the next attempt (instance id = the attempt, as
   instanceIdFor), or re-issues the start of a claimed one, then starts the execution named after it.
   StartExecution of an existing name starts nothing. A failed start releases the claim. */
proctype starter(byte me) {
  mtype s_ps, in_ps_now; byte s_lock, s_att, id, i; bit ok, claimed;
  mtype in_step[STEPS], in_logStatus[STEPS]; bit in_log[STEPS];
end_wait:
  do
  :: atomic { hints > 0 -> hints--; s_ps = r_ProcessState; s_lock = r_LockedBy; s_att = r_Attempt;
       printf("@@ starter takes a start message: the record is %e, locked by %d, attempt %d\\n", s_ps, s_lock, s_att) }
     claimed = 0;
     if
     :: s_lock == 0 && s_ps == S_Pending ->
        id = s_att + 1; assert(id <= MAX_ID);
        atomic {           ${call('claim', { instanceId: 'id', seenAttempt: 's_att', attempt: 'id', claimableUntil: '0', completeBy: 'tick', now: 'tick' })}
          m_claimedAt[me] = tick; INPUT_FROM_RECORD(); claimed = ok;
          printf("@@ starter claims attempt %d: %d\\n", id, ok) }
     :: s_lock == 0 && s_ps == S_CompensationInProgress ->
        id = s_att + 1; assert(id <= MAX_ID);
        atomic {           ${call('claimCompensation', { instanceId: 'id', seenAttempt: 's_att', attempt: 'id', claimableUntil: '0', completeBy: 'tick', now: 'tick' })}
          m_claimedAt[me] = tick; INPUT_FROM_RECORD(); claimed = ok;
          printf("@@ starter claims compensation attempt %d: %d\\n", id, ok) }
     :: s_lock != 0 && (s_ps == S_Processing || s_ps == S_CompensationInProgress) ->
        /* resume: a claim whose start may not have happened (the starter died between the two) */
        id = s_lock; atomic { INPUT_FROM_RECORD(); claimed = 1; printf("@@ starter re-issues the start of attempt %d\\n", id) }
     :: else -> skip
     fi;
     if
     :: claimed ->
        if
        :: START(id)
        :: atomic { startFailures > 0 -> startFailures--;
             printf("@@ starter: StartExecution of attempt %d fails on every try\\n", id) }
           RELEASE_AND_REDELIVER()
        :: atomic { startFailures > 0 -> startFailures--;
             printf("@@ starter: StartExecution of attempt %d started it, but its answer was lost\\n", id) }
           START(id);
           RELEASE_AND_REDELIVER()
        fi
     :: else -> skip
     fi;
     atomic { m_claimedAt[me] = 0; s_ps = 0; s_lock = 0; s_att = 0; id = 0; claimed = 0; ok = 0; in_ps_now = 0;
       for (i : 0 .. STEPS - 1) { in_step[i] = 0; in_log[i] = 0; in_logStatus[i] = 0 }
       i = 0 }
  od
}`;
}

function startMacros({ call }: ActorsContext): string {
  return `
/* The execution's input: the record as the starter read it with its claim (the compact shape's
   $.record.Item), kept per instance id. */
inline INPUT_FROM_RECORD() {
  in_ps_now = r_ProcessState;
  for (i : 0 .. STEPS - 1) { in_step[i] = r_StepStatus[i]; in_log[i] = r_Log[i]; in_logStatus[i] = r_LogStatus[i] }
}

inline START(id) {
  atomic {
    if
    :: !started[id] -> started[id] = 1; in_ps[id] = in_ps_now;
       for (i : 0 .. STEPS - 1) {
         in_StepStatus[id * STEPS + i] = in_step[i]; in_Log[id * STEPS + i] = in_log[i];
         in_LogStatus[id * STEPS + i] = in_logStatus[i]
       }
       printf("@@ starter starts execution %d\\n", id);
       run execution(id)
    :: else -> printf("@@ starter: execution %d exists already, nothing starts\\n", id)
    fi
  }
}

/* A failed start gives back a claim this call made (planRelease), fenced on the claim itself; a
   resumed start is never released. The start message is then redelivered. */
inline RELEASE_AND_REDELIVER() {
  if
  :: s_lock == 0 && s_ps == S_Pending ->
     atomic {        ${call('release', { instanceId: 'id', attempt: 'id', claimedAt: 'm_claimedAt[me]', restoredAttempt: 's_att', completeBy: 'tick', now: 'tick' })}
       printf("@@ starter releases the claim of attempt %d: %d\\n", id, ok) }
  :: s_lock == 0 && s_ps == S_CompensationInProgress ->
     atomic {        ${call('releaseCompensation', { instanceId: 'id', attempt: 'id', claimedAt: 'm_claimedAt[me]', restoredAttempt: 's_att', completeBy: 'tick', now: 'tick' })}
       printf("@@ starter releases the compensation claim of attempt %d: %d\\n", id, ok) }
  :: else -> skip
  fi;
  m_claimedAt[me] = 0;
  HINT()
}

/* A start message sent (a reset, a restart, an operator action, a redelivery): it may be lost. */
inline HINT() {
  atomic {
    if
    :: losses > 0 -> losses--; printf("@@ a start message is lost\\n")
    :: hints < MAX_HINTS -> hints++
    :: else -> skip
    fi
  }
}`;
}

function execution(context: ActorsContext): string {
  const { call, shape } = context;
  return `
/* Sends a request with its task token, then waits: the answer, or the task's timeout at any moment. */
inline REQUEST(action) {
  atomic { waitTok[id] = s * 2 + action + 1; reply[id] = 0; agentq!id, s, action;
    printf("@@ execution %d sends the %d request of step %d (0 perform, 1 compensate)\\n", id, action, s) }
  if
  :: atomic { reply[id] != 0 -> k = reply[id]; reply[id] = 0; waitTok[id] = 0 }
  :: atomic { waitTok[id] = 0; k = R_TRANSIENT; printf("@@ execution %d: the task of step %d times out\\n", id, s) }
  fi
}

/* An execution of the ${shape} shape (scheduler/paths.ts): CheckLock on its input, then each step's
   CallAgent from the first one not Completed (${shape === 'compact' ? 'the agent records the completion, the last one the order Processed' : 'then its MarkCompleted, and MarkProcessed after the last'}); a refusal begins the compensation chain, which undoes in reverse order what the
   execution's data says was done (Undo.Check); a lost lock ends it FencedOut, a timeout abandons. */
proctype execution(byte id) {
  byte s, k; bit ok, force;
  bit done[STEPS];${shape === 'classic' ? SHAPE_STEPS.classicLoad() : ''}
  if
  :: in_ps[id] == S_Processing ->
     s = 0;
     do
     :: s < STEPS && in_StepStatus[id * STEPS + s] == S_Completed -> s++
     :: else -> break
     od;
     if
     :: s == STEPS ->
        atomic { ${call('markProcessed', { instanceId: 'id', now: 'tick' }, { writer: 'id' })}
          printf("@@ execution %d: every step was completed, MarkProcessed: %d\\n", id, ok) }
        goto finish
     :: else -> skip
     fi;
     do
     :: s < STEPS ->${shape === 'classic' ? SHAPE_STEPS.classicMarkRunning(context) : ''}
        REQUEST(PERFORM);
        if
        :: k == R_SUCCESS ->${shape === 'compact' ? '' : SHAPE_STEPS.executionCompletion(context)}
           done[s] = 1; s++
        :: k == R_FENCED -> printf("@@ execution %d is fenced out\\n", id); goto finish
        :: k == R_TRANSIENT -> printf("@@ execution %d abandons the attempt\\n", id); goto finish
        :: k == R_PERMANENT ->
           atomic {              ${call('beginCompensation', { instanceId: 'id', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
             printf("@@ execution %d: step %d refused, BeginCompensation: %d\\n", id, s, ok) }
           if :: ok -> goto compensation :: else -> goto finish fi
        :: k == R_EXHAUSTED ->${SHAPE_STEPS.budgetSpent(context)}
        fi
     :: else ->${
       shape === 'compact'
         ? `
        printf("@@ execution %d ends Processed\\n", id)`
         : `
        atomic { ${call('markProcessed', { instanceId: 'id', now: 'tick' }, { writer: 'id' })}
          printf("@@ execution %d: MarkProcessed: %d\\n", id, ok) }`
     };
        goto finish
     od
  :: in_ps[id] == S_CompensationInProgress -> goto compensation
  :: else -> goto finish
  fi;
compensation:
  s = STEPS;
chain:
  do
  :: s > 0 ->
     s--;
     ok = 0;
     if
     :: force ->
        force = 0;
        atomic {
          ${call('markCompensatingUncertain', { instanceId: 'id', seq: 's', compensation: '0', undoes: '0', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
          printf("@@ execution %d: MarkCompensatingUncertain step %d (its budget spent): %d\\n", id, s, ok) }
        if :: !ok -> goto finish :: else -> skip fi
     :: !force && (in_Log[id * STEPS + s] && in_LogStatus[id * STEPS + s] != S_Compensated ||
        !in_Log[id * STEPS + s] && done[s]) ->
        atomic {           ${call('markCompensating', { instanceId: 'id', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
          printf("@@ execution %d: MarkCompensating step %d: %d\\n", id, s, ok) }
        if :: !ok -> goto finish :: else -> skip fi
     :: !force && !in_Log[id * STEPS + s] && !done[s] && in_StepStatus[id * STEPS + s] == S_TimedOut ->
        atomic {           ${call('markCompensatingUncertain', { instanceId: 'id', seq: 's', compensation: '0', undoes: '0', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
          printf("@@ execution %d: MarkCompensatingUncertain step %d: %d\\n", id, s, ok) }
        if :: !ok -> goto finish :: else -> skip fi
     :: else -> skip
     fi;
     if
     :: ok ->
        REQUEST(COMPENSATE);
        if
        :: k == R_SUCCESS ->
           atomic { ${call('markStepCompensated', { instanceId: 'id', result: '0', now: 'tick' }, { step: 's', writer: 'id' })}
             printf("@@ execution %d: MarkCompensated step %d: %d\\n", id, s, ok) }
           if :: !ok -> goto finish :: else -> skip fi
        :: k == R_PERMANENT || k == R_EXHAUSTED ->
           atomic { ${call('markCompensationFailed', { instanceId: 'id', lastError: '0', now: 'tick', alertId: 'id', attempt: 'id', correlationId: '0', compensationFailureCount: '0', failedStep: 's' }, { step: 's', writer: 'id' })}
             printf("@@ execution %d: compensation of step %d refused, MarkCompensationFailed: %d\\n", id, s, ok) }
           goto finish
        :: else -> printf("@@ execution %d abandons the compensation\\n", id); goto finish
        fi
     :: else -> skip
     fi
  :: else -> break
  od;
  atomic { ${call('markCompensated', { instanceId: 'id', now: 'tick' }, { writer: 'id' })}
    printf("@@ execution %d: MarkCompensated (the order): %d\\n", id, ok) }
finish:
  atomic { s = 0; k = 0; ok = 0; force = 0; for (k : 0 .. STEPS - 1) { done[k] = 0 } k = 0 }
}`;
}

function agentMacros({ call, shape }: ActorsContext): string {
  return `
/* The reservation (contracts RESERVE_CALL), and for a perform request of a lean or compact version the
   step marked Running in the same write (adapters/call-budget.ts withMarkRunning; a classic execution marks it itself); a refusal is
   read back as the adapter does: fenced (lock or state), else the budget spent. */
inline RESERVE() {
  atomic {
        if
    :: RESERVE_GUARD ->
       ${
         shape === 'classic'
           ? 'ok = 1;'
           : `if
       :: a == PERFORM ->
          ${call('progressStepRunning', { instanceId: 'id', runningStep: 's + 1', completeBy: 'tick', now: 'tick' }, { step: 's', writer: 'id' })}
       :: else -> ok = 1
       fi;`
       }
       if
       :: ok -> calls[op]++;
          if :: calls[op] > BUDGET -> printf("@@ agent reserves call %d of operation %d, over the budget\\n", calls[op], op) :: else -> skip fi;
          assert(calls[op] <= BUDGET); refusal = 0
       :: else -> refusal = R_FENCED
       fi
    :: else -> ok = 0;
       refusal = (a == PERFORM && (r_LockedBy != id || r_ProcessState != S_Processing) -> R_FENCED : R_EXHAUSTED)
    fi;
    printf("@@ agent reserves call %d of operation %d for execution %d: %d\\n", calls[op], op, id, ok)
  }
}

/* The remote service's contract (contracts/remote-service.ts, the fakes): one effect per
   Idempotency-Key, its answer replayed; an undo is final and closes the key. */
inline REMOTE() {
  atomic {
    if
    :: a == PERFORM ->
       if
       :: closed[s] -> k = R_PERMANENT
       :: !closed[s] && effect[s] == 1 -> k = R_SUCCESS
       :: !closed[s] && effect[s] == 2 -> k = R_PERMANENT
       :: !closed[s] && effect[s] == 0 -> effect[s] = 1; performed[s]++; k = R_SUCCESS
       :: !closed[s] && effect[s] == 0 -> effect[s] = 1; performed[s]++; k = R_TRANSIENT
       :: !closed[s] && effect[s] == 0 -> effect[s] = 2; k = R_PERMANENT
       :: !closed[s] && effect[s] == 0 -> k = R_TRANSIENT
       fi;
       printf("@@ remote service of step %d answers the perform call: %d (effect %d)\\n", s, k, effect[s]);
       assert(performed[s] <= 1);
       assert(!(performed[s] == 1 && r_ProcessState == S_Compensated))
    :: else ->
       if
       :: undo[s] == 1 -> k = R_SUCCESS
       :: undo[s] == 2 -> k = R_PERMANENT
       :: undo[s] == 0 -> undo[s] = 1; closed[s] = 1; k = R_SUCCESS;
          if
          :: effect[s] == 1 -> undone[s]++; UNDO_ORDER_CHECK(s)
          :: else -> skip
          fi
       :: undo[s] == 0 -> undo[s] = 2; k = R_PERMANENT
       :: undo[s] == 0 -> k = R_TRANSIENT
       fi;
       printf("@@ remote service of step %d answers the compensation: %d (undone %d)\\n", s, k, undone[s]);
       assert(undone[s] <= 1)
    fi
  }
}

inline ANSWER() {
  atomic {
    if
    :: losses > 0 -> losses--; printf("@@ the answer to execution %d is lost\\n", id)
    :: waitTok[id] == s * 2 + a + 1 -> reply[id] = k; printf("@@ agent answers execution %d: %d\\n", id, k)
    :: else -> printf("@@ agent: the task token of execution %d is closed\\n", id)
    fi
  }
}

inline CRASH_POINT() {
  if
  :: atomic { crashes > 0 -> crashes--; printf("@@ agent crashes; the request is redelivered\\n");
       if :: nfull(agentq) -> agentq!id, s, a :: full(agentq) -> skip fi }
     goto next
  :: skip
  fi
}
`;
}

function agent({ call, shape }: ActorsContext): string {
  return `
/* An agent (domain/agent.ts) on one request: the idempotency layer replays a stored answer (no
   reservation, no call); otherwise each call is reserved, then made, retried while transient; a
   compact perform records its step's completion (the last step's: the order Processed) before it
   answers, and reads back a refused write: already Completed is a success, else it is fenced out. */
proctype agent() {
  byte id, s, a, op, n, k, refusal; bit ok;
end_wait:
  do
  :: atomic { agentq?id, s, a ->
       op = s * 2 + a; n = 0;
       printf("@@ agent takes the request of step %d (%d) from execution %d\\n", s, a, id);
       if
       :: duplicates > 0 && nfull(agentq) -> duplicates--; agentq!id, s, a;
          printf("@@ the request is delivered twice\\n")
       :: true -> skip
       fi }
     if
     :: stored[op] -> printf("@@ agent: the idempotency layer replays the stored answer\\n"); goto recorded
     :: else -> skip
     fi;
     do
     :: n < AGENT_CALLS ->
        RESERVE();
        if
        :: !ok -> k = refusal; ANSWER(); goto next
        :: else -> skip
        fi;
        CRASH_POINT();
        REMOTE();
        n++;
        if
        :: k == R_SUCCESS -> break
        :: k == R_PERMANENT -> ANSWER(); goto next
        :: else -> skip
        fi
     :: else -> k = R_TRANSIENT; ANSWER(); goto next
     od;
     stored[op] = 1;
recorded:
     CRASH_POINT();
${shape === 'compact' ? SHAPE_STEPS.agentCompletion(call) : '     k = R_SUCCESS;'}
     ANSWER();
next:
     atomic { id = 0; s = 0; a = 0; op = 0; n = 0; k = 0; refusal = 0; ok = 0 }
  od
}`;
}

function supervisor({ call }: ActorsContext): string {
  const seen = { seenLock: 's_lock', seenCompleteBy: 'm_seenCompleteBy', seenFailureCount: 's_fc' };
  const seenCompensation = {
    seenLock: 's_lock',
    seenCompleteBy: 'm_seenCompleteBy',
    seenCompensationFailureCount: 's_cfc',
  };
  const alert = { alertId: 's_att', attempt: 's_att', correlationId: '0', lastError: '0' };
  return `
/* The supervisor (domain/supervisor.ts): reads a due record from its index (CompleteBy passed),
   decides with the code's rule, and applies the decision fenced on what it read; a reset or a
   restart sends a start message. Reading and writing are two steps: anything may happen between. */
/* What the supervisor read, forgotten once its write is done. */
inline FORGET() {
  s_lock = 0; s_att = 0; s_fc = 0; s_cfc = 0; s_rs = 0; kind = K_skip; nfc = 0; ncfc = 0; ok = 0; m_seenCompleteBy = 0
}

proctype supervisor() {
  byte s_lock, s_att, s_fc, s_cfc, s_rs, kind, nfc, ncfc; bit ok;
end_sweep:
  do
  :: atomic { r_DueShard && r_CompleteByPhase == PHASE_DUE ->
       s_lock = r_LockedBy; s_att = r_Attempt; s_fc = r_FailureCount;
       s_cfc = r_CompensationFailureCount; s_rs = r_RunningStep; m_seenCompleteBy = r_CompleteBy;
       decide(r_ProcessState, (s_lock != 0), s_fc, s_cfc, kind, nfc, ncfc);
       printf("@@ supervisor reads a due record: %e, locked by %d, running step %d; decides %d\\n", r_ProcessState, s_lock, s_rs, kind);
       /* it keeps only what its write binds: a skip is over at once, and two reads that lead to the
          same write are the same state */
       if
       :: kind == K_skip -> FORGET()
       :: kind == K_reset || kind == K_reset_compensation -> s_att = 0
       :: else -> skip
       fi;
       if
       :: kind == K_restart || kind == K_restart_compensation -> s_lock = 0; s_fc = 0; s_cfc = 0; nfc = 0; ncfc = 0; s_rs = 0
       :: kind == K_reset || kind == K_fail -> s_cfc = 0; ncfc = 0
       :: kind == K_reset_compensation || kind == K_fail_compensation -> s_fc = 0; nfc = 0; s_rs = 0
       :: else -> skip
       fi }
     if
     :: kind != K_skip ->
        atomic {
                  if
          :: kind == K_reset && s_rs == 0 ->
             ${call('resetExpired', { ...seen, failureCount: 'nfc', completeBy: 'tick', now: 'tick' })}
          :: kind == K_reset && s_rs != 0 ->
             ${call('resetExpiredInStep', { ...seen, runningStep: 's_rs', failureCount: 'nfc', completeBy: 'tick', now: 'tick' }, { step: 's_rs - 1' })}
          :: kind == K_fail && s_rs == 0 ->
             ${call('failExpired', { ...seen, failureCount: 'nfc', now: 'tick', ...alert })}
          :: kind == K_fail && s_rs != 0 ->
             ${call('failExpiredInStep', { ...seen, runningStep: 's_rs', failureCount: 'nfc', now: 'tick', ...alert }, { step: 's_rs - 1' })}
          :: kind == K_restart ->
             ${call('restartPending', { seenCompleteBy: 'm_seenCompleteBy', seenAttempt: 's_att', completeBy: 'tick', now: 'tick' })}
          :: kind == K_reset_compensation ->
             ${call('resetExpiredCompensation', { ...seenCompensation, compensationFailureCount: 'ncfc', completeBy: 'tick', now: 'tick' })}
          :: kind == K_fail_compensation ->
             ${call('failExpiredCompensation', { ...seenCompensation, compensationFailureCount: 'ncfc', now: 'tick', ...alert })}
          :: kind == K_restart_compensation ->
             ${call('restartCompensation', { seenCompleteBy: 'm_seenCompleteBy', seenAttempt: 's_att', completeBy: 'tick', now: 'tick' })}
          fi;
          printf("@@ supervisor applies decision %d: %d\\n", kind, ok);
          if
          :: ok && kind != K_fail && kind != K_fail_compensation -> m_seenCompleteBy = 0
          :: else -> FORGET()
          fi
        }
        if
        :: kind != K_skip -> atomic { HINT(); FORGET() }
        :: else -> skip
        fi
     :: else -> skip
     fi
  od
}`;
}

function operator({ call }: ActorsContext): string {
  const seen = {
    seenUpdatedAt: 'm_seenUpdatedAt',
    completeBy: 'tick',
    dueShard: '1',
    entry: '0',
    now: 'tick',
  };
  return `
/* The operator (domain/operator.ts): acts on an unlocked record it saw, fenced on its UpdatedAt;
   each action sends a start message. Bounded: a few retries and cancels. A cancel is tried in any
   state it reads: the route's refusal of the wrong states is the table's condition, decided here. */
proctype operator() {
  mtype s_ps; bit ok;
end_op:
  do
  :: atomic { r_LockedBy == 0 &&
       (r_ProcessState == S_Error && retries > 0 ||
        r_ProcessState == S_CompensationFailed && compensationRetries > 0 ||
        cancels > 0) ->
       s_ps = r_ProcessState; m_seenUpdatedAt = r_UpdatedAt; printf("@@ operator looks at the record: %e\\n", s_ps) }
     atomic {
              if
       :: s_ps == S_Error && retries > 0 -> retries--;
          ${call('operatorRetry', seen)}
          printf("@@ operator retries the order: %d\\n", ok)
       :: s_ps == S_CompensationFailed && compensationRetries > 0 -> compensationRetries--;
          ${call('operatorRetryCompensation', seen)}
          printf("@@ operator retries the compensation: %d\\n", ok)
       :: cancels > 0 -> cancels--;
          ${call('operatorCancel', { ...seen, seenState: 's_ps' })}
          printf("@@ operator cancels the order: %d\\n", ok)
       :: else -> ok = 0
       fi;
       m_seenUpdatedAt = 0
     }
     if :: ok -> HINT() :: else -> skip fi;
     atomic { s_ps = 0; ok = 0 }
  od
}`;
}

function clock(): string {
  return `
/* Time: the record's current deadline passes its back-off (claimable), then itself (due), at any
   moment; a new CompleteBy starts again at 0. */
proctype clock() {
end_tick:
  do
  :: atomic { r_DueShard && r_CompleteByPhase < PHASE_DUE ->
       /* a locked record's deadline has no claim window: it only passes */
       r_CompleteByPhase = (r_LockedBy != 0 -> PHASE_DUE : r_CompleteByPhase + 1);
       printf("@@ time passes: deadline %d is %d (1 claimable, 2 passed)\\n", r_CompleteBy, r_CompleteByPhase) }
  od
}`;
}

/** Every actor's proctype and macro, in the order Promela needs them. */
export function actorsSource(context: ActorsContext): string {
  return [
    startMacros(context),
    execution(context),
    starter(context),
    agentMacros(context),
    agent(context),
    supervisor(context),
    operator(context),
    clock(),
  ].join('\n');
}
