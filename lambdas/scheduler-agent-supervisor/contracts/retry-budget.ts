/**
 * The end-to-end retry budget (MISSION item 10): how many calls one dependency (a remote service)
 * may receive for ONE operation (a step, or the compensation of a step) of ONE order, every layer
 * and attempt included. Chosen per profile (lib/scheduler-agent-supervisor/config.ts,
 * `retryBudget.callsPerOperation`), written into each record at creation (StateAttr.RetryBudget),
 * and enforced by the agents, which reserve every call in the record (StateAttr.CallsMade) before
 * they make it. Schema-2 records, created before the budget existed, use the deployment's number,
 * which the agents and the submission read from RETRY_BUDGET.
 */

/** Bounds of a configured budget: at least one call, and a ceiling that catches a typo. */
export const RETRY_BUDGET_LIMITS = { min: 1, max: 1000 } as const;

/** Throws naming `owner` when `calls` is not a whole number within RETRY_BUDGET_LIMITS. */
export function validateRetryBudget(owner: string, calls: number): number {
  if (!Number.isInteger(calls) || calls < RETRY_BUDGET_LIMITS.min || calls > RETRY_BUDGET_LIMITS.max) {
    throw new Error(
      `${owner}: the retry budget (calls per operation) must be an integer from ${RETRY_BUDGET_LIMITS.min} to ${RETRY_BUDGET_LIMITS.max}, got ${calls}`,
    );
  }
  return calls;
}

/** RETRY_BUDGET as the handlers read it: the decimal number of calls per operation. */
export function parseRetryBudget(text: string): number {
  if (!/^[0-9]+$/.test(text)) {
    throw new Error(`RETRY_BUDGET must be a decimal number of calls per operation, got '${text}'`);
  }
  return validateRetryBudget('RETRY_BUDGET', Number(text));
}

/**
 * Remote calls the agents' HTTP client (adapters/remote-client.ts) sends per call it is asked
 * for: one. It uses fetch without a retry of its own, so the agent's call attempts
 * (agentMaxCallAttempts) are the only retry inside an agent; a client that retried internally
 * would multiply every other layer, and this number (a factor of the synth guardrail) would say so.
 */
export const REMOTE_CLIENT_REQUESTS_PER_CALL = 1;

/**
 * The reservation of one call (adapters/call-budget.ts applies it, the protocol model of lib/verify
 * reads it): `#calls` is StateAttr.CallsMade, `#op` the operation, `#budget` StateAttr.RetryBudget,
 * `#orderId` the key, `:deploymentBudget` the deployment's RETRY_BUDGET (schema-2 records), `:one` 1.
 */
export const RESERVE_CALL = {
  updateExpression: 'ADD #calls.#op :one',
  conditionExpression:
    'attribute_exists(#orderId) AND (attribute_not_exists(#calls.#op) OR #calls.#op < #budget OR (attribute_not_exists(#budget) AND #calls.#op < :deploymentBudget))',
} as const;
