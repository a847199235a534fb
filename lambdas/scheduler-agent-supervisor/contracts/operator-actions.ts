/**
 * Which order states allow which operator action (DESIGN.md, Operator actions): the one rule that
 * the operator routes enforce (domain/operator.ts refuses with 409 what it does not allow) and that
 * the console reads to show a button enabled or say why not before any click
 * (console/src/OrderView.tsx). It lives in the wing's public face so that the page imports the rule
 * rather than copying it. It imports nothing but the states (the action is a type only), so the
 * page's bundle takes no schema with it.
 */
import type { OperatorAction } from './api';
import { ProcessState } from './states';

/** The operator transitions of STATE_TRANSITIONS. */
export type OperatorTransitionName = 'operatorRetry' | 'operatorRetryCompensation' | 'operatorCancel';

/**
 * The states each action applies to, and the transition it takes from each. Processing is never
 * acted on (an attempt is running: wait until it settles); CompensationInProgress and Compensated
 * neither (a rollback is under way or done).
 */
const ACTION_TRANSITIONS: Readonly<
  Record<OperatorAction, Readonly<Partial<Record<ProcessState, OperatorTransitionName>>>>
> = {
  retry: {
    [ProcessState.Error]: 'operatorRetry',
    [ProcessState.CompensationFailed]: 'operatorRetryCompensation',
  },
  cancel: {
    [ProcessState.Pending]: 'operatorCancel',
    [ProcessState.Error]: 'operatorCancel',
    [ProcessState.Processed]: 'operatorCancel',
  },
};

/** The states that allow `action`, in the order of ProcessState. */
export function statesAllowing(action: OperatorAction): readonly ProcessState[] {
  return Object.values(ProcessState).filter((state) => ACTION_TRANSITIONS[action][state] !== undefined);
}

/** The transition `action` takes from `state`, or undefined when the state does not allow it. */
export function operatorTransitionFor(
  action: OperatorAction,
  state: ProcessState,
): OperatorTransitionName | undefined {
  return ACTION_TRANSITIONS[action][state];
}

const RUNNING_HINT = ' (an attempt is running: wait until it settles, then look again)';

/** The 409 NotAllowed message of the operator routes. */
export function notAllowedMessage(action: OperatorAction, state: ProcessState): string {
  const why = state === ProcessState.Processing ? RUNNING_HINT : '';
  return `Cannot ${action} an order in state ${state}${why}; ${action} applies to ${statesAllowing(action).join(', ')}`;
}

/** What an action may do to an order as it is: its transition, or why not, in words. */
export type OperatorActionAvailability =
  | { readonly allowed: true; readonly transition: OperatorTransitionName }
  | { readonly allowed: false; readonly reason: string };

/**
 * Whether `action` applies to the order as seen: its state allows it and no attempt holds it
 * (a record locked by an attempt is never acted on, whatever its state). The routes decide with
 * this on what the operator saw; the page shows the reason beside a disabled button.
 */
export function operatorActionAvailability(
  action: OperatorAction,
  order: { readonly processState: ProcessState; readonly lockedBy?: string },
): OperatorActionAvailability {
  const transition = operatorTransitionFor(action, order.processState);
  const name = action === 'retry' ? 'Retry' : 'Cancel';
  if (transition === undefined) {
    const why = order.processState === ProcessState.Processing ? RUNNING_HINT : '';
    return {
      allowed: false,
      reason: `${name} applies to ${statesAllowing(action).join(', ')}; this order is ${order.processState}${why}`,
    };
  }
  if (order.lockedBy !== undefined) {
    return {
      allowed: false,
      reason: `${name} waits: attempt ${order.lockedBy} holds this order; look again once it settles`,
    };
  }
  return { allowed: true, transition };
}
