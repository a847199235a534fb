/**
 * How the model represents the state record (DESIGN.md "Model-checked"): each attribute a guard reads
 * or a property needs is a Promela variable; an attribute only ever written (Plan, LastError, the
 * timestamps of a step, the operator log) is left out, and a transition whose CONDITION names a path
 * the model leaves out is refused, so no guard is ever dropped silently.
 *
 * Times are abstracted as the protocol uses them: UpdatedAt and ProgressAt are only compared for
 * equality, so each write stamps a fresh tick; CompleteBy is a fresh deadline id plus its phase
 * (0 running, 1 its back-off and start grace over: claimable, 2 passed: due for the supervisor),
 * which a clock process advances at any moment (any timing).
 */
import {
  ALERT_ID_PARAM,
  type AttributePath,
  StateAttr,
  THIS_ALERT,
  THIS_STEP,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';

/** What one modelled path is. */
export type Encoding =
  /** A value (a string symbol, a number, an instance id); absent is 0. */
  | { readonly kind: 'value'; readonly variable: string }
  /** Present or absent (the index keys): any SET makes it present. */
  | { readonly kind: 'flag'; readonly variable: string }
  /** A deadline: a fresh id on each SET, and its phase, reset to 0 by the SET. */
  | { readonly kind: 'deadline'; readonly variable: string; readonly phase: string }
  /** A map entry written whole: its presence, and the attributes of it the model keeps. */
  | { readonly kind: 'entry'; readonly variable: string; readonly fields: Readonly<Record<string, string>> }
  /** A map entry named by a parameter (an alert, by its id): the variable holds the name's value. */
  | { readonly kind: 'named-entry'; readonly variable: string; readonly nameParam: string };

/** `<s>` stands for the step's index in the step arrays, filled in when a step transition is rendered. */
export const STEP_INDEX = '<s>';

const ENCODINGS: Readonly<Record<string, Encoding>> = {
  [StateAttr.ProcessState]: { kind: 'value', variable: 'r_ProcessState' },
  [StateAttr.LockedBy]: { kind: 'value', variable: 'r_LockedBy' },
  [StateAttr.Attempt]: { kind: 'value', variable: 'r_Attempt' },
  [StateAttr.FailureCount]: { kind: 'value', variable: 'r_FailureCount' },
  [StateAttr.CompensationFailureCount]: { kind: 'value', variable: 'r_CompensationFailureCount' },
  [StateAttr.UpdatedAt]: { kind: 'value', variable: 'r_UpdatedAt' },
  [StateAttr.ProgressAt]: { kind: 'value', variable: 'r_ProgressAt' },
  [StateAttr.RunningStep]: { kind: 'value', variable: 'r_RunningStep' },
  [StateAttr.DueShard]: { kind: 'flag', variable: 'r_DueShard' },
  [StateAttr.CompleteBy]: { kind: 'deadline', variable: 'r_CompleteBy', phase: 'r_CompleteByPhase' },
  [`${StateAttr.Steps}.${THIS_STEP}.Status`]: { kind: 'value', variable: `r_StepStatus[${STEP_INDEX}]` },
  [`${StateAttr.CompensationLog}.${THIS_STEP}`]: {
    kind: 'entry',
    variable: `r_Log[${STEP_INDEX}]`,
    fields: { Status: `r_LogStatus[${STEP_INDEX}]` },
  },
  [`${StateAttr.CompensationLog}.${THIS_STEP}.Status`]: {
    kind: 'value',
    variable: `r_LogStatus[${STEP_INDEX}]`,
  },
  // The alert raised with a failure: its id (the order and attempt: here the attempt's number).
  [`${StateAttr.AlertOutbox}.${THIS_ALERT}`]: {
    kind: 'named-entry',
    variable: 'r_Alert',
    nameParam: ALERT_ID_PARAM,
  },
};

/** The path as the encodings key it. */
export function pathKey(path: AttributePath): string {
  return path.join('.');
}

/** How the model represents `path`, or undefined when the model leaves it out (written, never read). */
export function encodingOf(path: AttributePath): Encoding | undefined {
  return ENCODINGS[pathKey(path)];
}

/** The record's variables, declared and initialised as a new order's (Pending, attempt 0, in the index). */
export function recordDeclarations(steps: number): string {
  return [
    'mtype r_ProcessState = S_Pending;',
    'byte r_LockedBy = 0;',
    'byte r_Attempt = 0;',
    'byte r_FailureCount = 0;',
    'byte r_CompensationFailureCount = 0;',
    'byte r_UpdatedAt = 0;',
    'byte r_ProgressAt = 0;',
    'byte r_RunningStep = 0;',
    'bit r_DueShard = 1;',
    'byte r_CompleteBy = 0;',
    'byte r_CompleteByPhase = 0;',
    `mtype r_StepStatus[${steps}];`,
    `bit r_Log[${steps}];`,
    `mtype r_LogStatus[${steps}];`,
    'byte r_Alert = 0;',
  ].join('\n');
}
