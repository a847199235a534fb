/**
 * The order workflow as data: the scheduler's state machine, the agents, the remote services and
 * the state record are all generated from this list, so adding a step is one entry here, not three
 * copied code paths.
 */
export interface StepDefinition {
  /** Step name as stored in the state record and shown by the API. */
  readonly name: string;
  /** Remote service this step's agent calls (also the agent's construct id suffix). */
  readonly service: string;
  /** Path of the remote operation, appended to the service endpoint. */
  readonly operationPath: string;
}

export const ORDER_STEPS = [
  { name: 'ReserveInventory', service: 'inventory', operationPath: '/inventory/reservations' },
  { name: 'ChargePayment', service: 'payment', operationPath: '/payments/charges' },
  { name: 'ScheduleShipping', service: 'shipping', operationPath: '/shipping/shipments' },
] as const satisfies readonly StepDefinition[];

export type StepName = (typeof ORDER_STEPS)[number]['name'];
export type ServiceName = (typeof ORDER_STEPS)[number]['service'];

export const STEP_NAMES: readonly StepName[] = ORDER_STEPS.map((step) => step.name);

export function stepDefinition(name: string): StepDefinition {
  const step = ORDER_STEPS.find((candidate) => candidate.name === name);
  if (!step) {
    throw new Error(`Unknown step '${name}'. Known steps: ${STEP_NAMES.join(', ')}`);
  }
  return step;
}
