/**
 * The record's string values as Promela numbers: every value of the order's state enumerations
 * (process state, step status, compensation status), read from the contracts, gets one `#define`.
 * A transition that writes or tests a string the model does not know is refused by name, so a new
 * state in the code cannot slip past the model.
 */
import {
  CompensationStatus,
  ProcessState,
  StepStatus,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';

/** The string values the model encodes, each once, in a stable order. */
export const MODELLED_STRINGS: readonly string[] = [
  ...new Set([
    ...Object.values(ProcessState),
    ...Object.values(StepStatus),
    ...Object.values(CompensationStatus),
  ]),
];

/** The Promela name of a string value (`S_Pending`); throws naming a value the model does not encode. */
export function symbolOf(value: string): string {
  if (!MODELLED_STRINGS.includes(value)) {
    throw new Error(`The orders model encodes no string '${value}' (known: ${MODELLED_STRINGS.join(', ')})`);
  }
  return `S_${value}`;
}

/** The values as Promela's mtype (0 stays "absent"), so a trail prints them by name. */
export function symbolDefines(): string {
  return `mtype = { ${MODELLED_STRINGS.map((value) => symbolOf(value)).join(', ')} };`;
}
