/**
 * The contract between the agents and the remote services they call (the fakes in lambdas/fakes
 * implement it; a real deployment points the agents at services that honour it).
 *
 *   POST <operationPath>            one of ORDER_STEPS[*].operationPath; the path picks the service
 *   Idempotency-Key: <key>          required; the agent sends `<orderId>:<step>` on every call
 *   X-Correlation-Id: <id>          optional; echoed into the service's logs
 *   body: { orderId, customerId, items: [{ sku, quantity }], totalCents, currency }
 *
 *   201 { confirmationId }          the effect was recorded now (once per service and key)
 *   200 { confirmationId }          replay: the effect recorded earlier for this key, unchanged
 *   400 { message, errors }         missing/invalid Idempotency-Key or body; nothing recorded
 *   404 / 405                       unknown path / not POST; nothing recorded
 *   422 { message }                 refused for good (business rule); nothing recorded. Also the
 *                                   answer to an operation whose key was already compensated: an
 *                                   undo is final, a late original call must not redo the effect
 *
 * Compensations (StepDefinition.compensation.operationPath of the same service):
 *
 *   POST <compensation operationPath>
 *   Idempotency-Key: <orderId>:<compensation name>
 *   body: { orderId, undoes: <orderId>:<step name> }
 *
 *   201 { confirmationId, undone: true }    the effect recorded under `undoes` was undone now
 *   201 { confirmationId, undone: false }   nothing was recorded under `undoes`: nothing to undo,
 *                                           and the key is now closed (a late original is refused)
 *   200 { confirmationId, undone }          replay of the first answer for this key
 *   400 / 404 / 405 / 422                   as above; nothing undone
 */
import * as z from 'zod';
import { ORDER_ID_PATTERN } from './api';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Body of a remote operation call (what the agent sends, what the service validates). */
export const RemoteOperationRequestSchema = z
  .object({
    orderId: z.string().regex(ORDER_ID_PATTERN, 'must be 1-64 characters of A-Z a-z 0-9 _ -'),
    customerId: z.string().min(1),
    items: z.array(z.object({ sku: z.string().min(1), quantity: z.number().int().min(1) }).strict()).min(1),
    totalCents: z.number().int().nonnegative(),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter ISO 4217 code in capitals'),
  })
  .strict();
export type RemoteOperationRequest = z.infer<typeof RemoteOperationRequestSchema>;

/** Success body of a remote operation. */
export interface RemoteOperationResult {
  readonly confirmationId: string;
}

/** Body of a compensating call. */
export const RemoteCompensationRequestSchema = z
  .object({
    orderId: z.string().regex(ORDER_ID_PATTERN, 'must be 1-64 characters of A-Z a-z 0-9 _ -'),
    undoes: z.string().regex(IDEMPOTENCY_KEY_PATTERN, 'must be the Idempotency-Key of the effect to undo'),
  })
  .strict();
export type RemoteCompensationRequest = z.infer<typeof RemoteCompensationRequestSchema>;

/** Success body of a compensating call. */
export interface RemoteCompensationResult {
  readonly confirmationId: string;
  /** False when the service had no effect recorded under `undoes`. */
  readonly undone: boolean;
}

/**
 * How an agent authenticates to its remote service (REMOTE_AUTH): `iam` signs each call with
 * SigV4 for a Lambda function URL with AWS_IAM auth; `none` sends no credentials.
 */
export const REMOTE_AUTH_MODES = ['iam', 'none'] as const;
export type RemoteAuthMode = (typeof REMOTE_AUTH_MODES)[number];
