/**
 * Per-client reply queues (MISSION item 11): every client application is configuration (a name
 * and the principal allowed to read its queue); each gets its own SQS FIFO queue, and the
 * workflow tells it, on that queue only, each status change of its orders, once per transition.
 */
import * as z from 'zod';
import { distinctFields } from '../../shared/distinct-fields';
import { jsonParser } from '../../shared/parse';
import type { UnregisteredCaller } from '../../shared/registered-caller';
import { OrderMetric } from './metrics';
import { ProcessState } from './states';

export const CLIENT_NAME_PATTERN = /^[a-z][a-z0-9-]{1,30}[a-z0-9]$/;

/** What a client is told. */
export const ClientStatus = {
  Received: 'Received',
  Completed: 'Completed',
  Failed: 'Failed',
  Compensated: 'Compensated',
} as const;
export type ClientStatus = (typeof ClientStatus)[keyof typeof ClientStatus];

/**
 * The status a transition into `state` tells the client (undefined: the client is not told).
 * Received is told on creation (the record's INSERT), not on a state.
 */
export function clientStatusFor(state: ProcessState): ClientStatus | undefined {
  switch (state) {
    case ProcessState.Processed:
      return ClientStatus.Completed;
    case ProcessState.Error:
    case ProcessState.CompensationFailed:
      return ClientStatus.Failed;
    case ProcessState.Compensated:
      return ClientStatus.Compensated;
    default:
      return undefined;
  }
}

/** Body of a status message on a client's reply queue (schemaVersion in the body, not the envelope). */
export const ClientStatusMessageSchema = z
  .object({
    schemaVersion: z.literal(1),
    orderId: z.string().min(1),
    clientId: z.string().regex(CLIENT_NAME_PATTERN),
    status: z.enum(['Received', 'Completed', 'Failed', 'Compensated']),
    processState: z.string().min(1),
    /** When the transition happened (the record's UpdatedAt). */
    at: z.string().min(1),
    /**
     * Unique per transition (`<orderId>:<status>:<at>`): the FIFO MessageDeduplicationId, and the
     * key a client de-duplicates on beyond SQS's 5-minute window.
     */
    messageKey: z.string().min(1),
  })
  .strict();
export type ClientStatusMessage = z.infer<typeof ClientStatusMessageSchema>;

export function clientMessageKey(orderId: string, status: ClientStatus, at: string): string {
  return `${orderId}:${status}:${at}`;
}

/**
 * The clients as the handlers know them (EnvKey.ClientRegistry, JSON): the submission and the order
 * lookup map the caller's API key id to its client, the status notifier maps a record's ClientId to
 * its reply queue. Written by the stack from the configuration, so both sides read one list.
 */
export const ClientRegistrySchema = z
  .array(
    z
      .object({
        clientId: z.string().regex(CLIENT_NAME_PATTERN),
        /** The id of the client's API key (what API Gateway puts in requestContext.identity.apiKeyId). */
        apiKeyId: z.string().min(1),
        /** URL of the client's FIFO reply queue. */
        replyQueueUrl: z.string().min(1),
      })
      .strict(),
  )
  .min(1)
  .superRefine(distinctFields(['clientId', 'apiKeyId', 'replyQueueUrl']));
export type ClientRegistry = z.infer<typeof ClientRegistrySchema>;
export type RegisteredClient = ClientRegistry[number];

/** A key of no registered client (lambdas/shared/registered-caller.ts): named and counted so. */
export const UNREGISTERED_CLIENT = {
  entry: 'client',
  metric: OrderMetric.UnknownClientRequests,
} as const satisfies UnregisteredCaller<OrderMetric>;

const parseRegistryJson = jsonParser(ClientRegistrySchema, { rootLabel: '(list)' });

/**
 * Parses EnvKey.ClientRegistry with the shared JSON parser and the schema (as the deliveries'
 * requester registry is read); throws naming what is wrong, every bad entry and field (a handler
 * must fail at load, not per request).
 */
export function parseClientRegistry(json: string): ClientRegistry {
  const parsed = parseRegistryJson(json);
  if (!parsed.ok) {
    throw new Error(
      `Client registry is ${parsed.problem === 'not-json' ? 'not JSON' : 'invalid'}: ${parsed.summary}`,
    );
  }
  return parsed.value;
}
