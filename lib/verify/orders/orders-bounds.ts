/**
 * The bounds the orders model is generated within: how many steps, failures and calls, and how often
 * the environment may crash, lose, duplicate or refuse. Every other timing is free: deadlines pass,
 * task tokens time out and messages wait at any moment, in any order.
 */
export interface OrdersBounds {
  /** The first steps of the workflow version modelled. @default 2 */
  readonly steps?: number;
  /** maxFailures of the supervisor's rule. @default 1 */
  readonly maxFailures?: number;
  /** maxCompensationFailures of the supervisor's rule. @default 1 */
  readonly maxCompensationFailures?: number;
  /** Calls per operation (the retry budget). @default 1 */
  readonly budget?: number;
  /** Calls one agent delivery may make (agentMaxCallAttempts). @default 2 */
  readonly agentCalls?: number;
  /** Agents taking requests side by side. @default 1 */
  readonly agents?: number;
  /** Starters taking start messages side by side. @default 1 */
  readonly starters?: number;
  /** Agent crashes (the request is redelivered). @default 1 */
  readonly crashes?: number;
  /** Duplicate deliveries of a request. @default 0 */
  readonly duplicates?: number;
  /** Messages lost: a start message, or a task token's answer. @default 0 */
  readonly losses?: number;
  /** StartExecution calls that fail (or whose answer is lost). @default 0 */
  readonly startFailures?: number;
  /** Operator retries of an Error order. @default 0 */
  readonly operatorRetries?: number;
  /** Operator retries of a CompensationFailed order. @default 0 */
  readonly operatorCompensationRetries?: number;
  /** Operator cancels. @default 0 */
  readonly operatorCancels?: number;
}

export type ResolvedOrdersBounds = Required<OrdersBounds>;

export const DEFAULT_ORDERS_BOUNDS: ResolvedOrdersBounds = {
  steps: 2,
  maxFailures: 1,
  maxCompensationFailures: 1,
  budget: 1,
  agentCalls: 2,
  agents: 1,
  starters: 1,
  crashes: 1,
  duplicates: 0,
  losses: 0,
  startFailures: 0,
  operatorRetries: 0,
  operatorCompensationRetries: 0,
  operatorCancels: 0,
};

/** The bounds with their defaults, each checked to be a whole number in range. */
export function resolveOrdersBounds(bounds: OrdersBounds = {}): ResolvedOrdersBounds {
  const resolved = { ...DEFAULT_ORDERS_BOUNDS, ...bounds };
  for (const [name, value] of Object.entries(resolved)) {
    const min = [
      'steps',
      'maxFailures',
      'maxCompensationFailures',
      'budget',
      'agentCalls',
      'agents',
      'starters',
    ].includes(name)
      ? 1
      : 0;
    if (!Number.isInteger(value) || value < min || value > 9) {
      throw new Error(`Orders model bound ${name} must be a whole number from ${min} to 9, got ${value}`);
    }
  }
  return resolved;
}

/** The largest attempt (execution instance id) the bounds allow: every claim is one more attempt. */
export function maxAttempt(bounds: ResolvedOrdersBounds): number {
  return (
    bounds.maxFailures * (1 + bounds.operatorRetries) +
    bounds.maxCompensationFailures * (1 + bounds.operatorCompensationRetries + bounds.operatorCancels) +
    bounds.startFailures +
    1
  );
}
