import type { CallResult } from './call-result';
/**
 * The order wing's domain errors, in one place: what a use case throws for its handler (or its
 * idempotency layer) to tell apart.
 */

/** Thrown inside the idempotent call so a failed call leaves no idempotency record behind. */
export class RemoteCallFailedError extends Error {
  constructor(readonly result: Exclude<CallResult, { kind: 'success' }>) {
    super(
      `remote call failed (${result.kind}${'reason' in result ? `, ${result.reason}` : ''}): ${result.detail}`,
    );
    this.name = 'RemoteCallFailedError';
  }
}

/** Another delivery of the same key is mid-call: this one must come back later, not answer now. */
export class ConcurrentDeliveryError extends Error {
  constructor(idempotencyKey: string) {
    super(`another delivery for idempotency key '${idempotencyKey}' is calling the remote service`);
    this.name = 'ConcurrentDeliveryError';
  }
}

/** The same key came with different order data: a bug upstream that retrying cannot fix. */
export class IdempotencyKeyReusedError extends Error {
  constructor(idempotencyKey: string) {
    super(`idempotency key '${idempotencyKey}' was used before with different order data`);
    this.name = 'IdempotencyKeyReusedError';
  }
}

export class InvalidAgentRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidAgentRequestError';
  }
}

/** A lean version's start finds no order in the business database: it can never succeed. */
export class MissingOrderError extends Error {
  constructor(readonly orderId: string) {
    super(`No order '${orderId}' in the business database to start its lean workflow execution with`);
    this.name = 'MissingOrderError';
  }
}

/** A start message names an order the state store does not know: it can never succeed. */
export class UnknownOrderError extends Error {
  constructor(readonly orderId: string) {
    super(`No state record for order '${orderId}'`);
    this.name = 'UnknownOrderError';
  }
}
