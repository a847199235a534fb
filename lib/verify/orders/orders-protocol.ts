/**
 * What the orders model is generated from: the code's own transition table, retry budget
 * reservation, supervisor rule and workflow version. A broken variant is this with one guard taken
 * out; the model of the code is generated from ORDERS_PROTOCOL as it is.
 */
import {
  DEFAULT_WORKFLOW_VERSION,
  RESERVE_CALL,
  STATE_TRANSITIONS,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { decideSupervision } from '../../../lambdas/scheduler-agent-supervisor/protocol';
import type { Reservation } from './reservation-guard';
import type { SupervisionRule } from './supervision-table';
import type { ModelTransition } from './transition-inline';

export interface OrdersProtocol {
  /** Every transition of the state record, by name (STATE_TRANSITIONS). */
  readonly transitions: Readonly<Record<string, ModelTransition>>;
  /** The call reservation (RESERVE_CALL). */
  readonly reservation: Reservation;
  /** The supervisor's rule (decideSupervision). */
  readonly supervision: SupervisionRule;
  /** The workflow version whose steps and shape are modelled. */
  readonly workflowVersion: number;
}

export const ORDERS_PROTOCOL: OrdersProtocol = {
  transitions: STATE_TRANSITIONS,
  reservation: RESERVE_CALL,
  supervision: decideSupervision,
  workflowVersion: DEFAULT_WORKFLOW_VERSION,
};
