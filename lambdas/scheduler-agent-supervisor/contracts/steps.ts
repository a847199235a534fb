/**
 * The catalogue of step kinds: every step any workflow version runs (./workflows.ts picks, per
 * version, which ones and in which order). The scheduler's state machines, the agents, the remote
 * services and the state record are all generated from this data, so adding a step kind is one
 * entry here, not three copied code paths; running it is a new workflow version.
 */
export interface StepDefinition {
  /** Step name as stored in the state record and shown by the API. */
  readonly name: string;
  /** Remote service this step's agent calls (also the agent's construct id suffix). */
  readonly service: string;
  /** Path of the remote operation, appended to the service endpoint. */
  readonly operationPath: string;
  /**
   * How the step is undone (MISSION item 9): an operation of the same service, run by the same
   * agent (same request queue, task token, timeout, heartbeat and idempotency), keyed on
   * `<orderId>:<compensation name>`. Undoing an effect the service never recorded is a recorded
   * no-op (see remote-service.ts), so an uncertain step can be compensated safely.
   */
  readonly compensation: CompensationDefinition;
}

export interface CompensationDefinition {
  /** Operation name (letters and digits), e.g. RefundPayment; shown in the compensation log. */
  readonly name: string;
  /** Path of the compensating operation on the step's service. */
  readonly operationPath: string;
}

export const ORDER_STEPS = [
  {
    name: 'ReserveInventory',
    service: 'inventory',
    operationPath: '/inventory/reservations',
    compensation: { name: 'ReleaseInventory', operationPath: '/inventory/releases' },
  },
  {
    name: 'ChargePayment',
    service: 'payment',
    operationPath: '/payments/charges',
    compensation: { name: 'RefundPayment', operationPath: '/payments/refunds' },
  },
  {
    name: 'ScheduleShipping',
    service: 'shipping',
    operationPath: '/shipping/shipments',
    compensation: { name: 'CancelShipment', operationPath: '/shipping/cancellations' },
  },
  {
    name: 'AwardLoyaltyPoints',
    service: 'loyalty',
    operationPath: '/loyalty/awards',
    compensation: { name: 'RevokeLoyaltyPoints', operationPath: '/loyalty/revocations' },
  },
] as const satisfies readonly StepDefinition[];

/** One entry of the catalogue, with its literal names. */
export type OrderStep = (typeof ORDER_STEPS)[number];
export type StepName = OrderStep['name'];
export type ServiceName = (typeof ORDER_STEPS)[number]['service'];

export type CompensationName = (typeof ORDER_STEPS)[number]['compensation']['name'];
/** An operation an agent runs: a step, or the compensation of one. */
export type OperationName = StepName | CompensationName;

/** Every step kind of the catalogue (not the steps of one order: see workflowSteps). */
export const STEP_NAMES: readonly StepName[] = ORDER_STEPS.map((step) => step.name);
export const COMPENSATION_NAMES: readonly CompensationName[] = ORDER_STEPS.map(
  (step) => step.compensation.name,
);

/**
 * The stable idempotency key of one operation of one order: identical on every retry, attempt and
 * redelivery, never derived from a task token. A compensation has its own key, and names the key
 * of the effect it undoes (`undoes`).
 */
export function operationKey(orderId: string, operation: string): string {
  return `${orderId}:${operation}`;
}

export function stepDefinition(name: string): StepDefinition {
  const step = ORDER_STEPS.find((candidate) => candidate.name === name);
  if (!step) {
    throw new Error(`Unknown step '${name}'. Known steps: ${STEP_NAMES.join(', ')}`);
  }
  return step;
}

/** What an agent call of the scheduler runs: the step itself, or its compensation (AgentRequest.action). */
export type AgentCallAction = 'perform' | 'compensate';

/**
 * The Step Functions state that calls a step's agent and waits for its answer: `<Step>.CallAgent`
 * (perform) or `<Step>.Undo.CallAgent` (compensate). The scheduler names its states with it, and
 * operator inspect finds a step's runs in an execution's history by it.
 */
export function agentCallStateName(step: string, action: AgentCallAction): string {
  return action === 'compensate' ? `${step}.Undo.CallAgent` : `${step}.CallAgent`;
}

/** The step and action of an agent-call state name (agentCallStateName), or undefined for any other state. */
export function agentCallOfStateName(
  stateName: string,
): { readonly step: StepName; readonly action: AgentCallAction } | undefined {
  const match = /^([A-Za-z]+)\.(Undo\.)?CallAgent$/.exec(stateName);
  const step = STEP_NAMES.find((name) => name === match?.[1]);
  if (!match || step === undefined) return undefined;
  return { step, action: match[2] ? 'compensate' : 'perform' };
}
