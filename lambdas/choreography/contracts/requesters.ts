/**
 * The delivery requesters as the ingestion handlers know them (ChoreographyEnvKey.RequesterRegistry,
 * JSON): the caller's API key id (API Gateway's requestContext.identity.apiKeyId) maps to its
 * requester. Written by the stack from the configuration (lib/choreography/config.ts `requesters`).
 */
import * as z from 'zod';
import { distinctFields } from '../../shared/distinct-fields';
import type { UnregisteredCaller } from '../../shared/registered-caller';
import { DeliveryMetric } from './metrics';

/** A requester's name (configuration `requesters`): its API key and its deliveries' requesterId. */
export const REQUESTER_NAME_PATTERN = /^[a-z][a-z0-9-]{0,39}$/;

export const RequesterRegistrySchema = z
  .array(
    z
      .object({
        requesterId: z.string().regex(REQUESTER_NAME_PATTERN),
        /** The id of the requester's API key. */
        apiKeyId: z.string().min(1),
      })
      .strict(),
  )
  .min(1)
  .superRefine(distinctFields(['requesterId', 'apiKeyId']));
export type RequesterRegistry = z.infer<typeof RequesterRegistrySchema>;
export type RegisteredRequester = RequesterRegistry[number];

/** A key of no registered requester (lambdas/shared/registered-caller.ts): named and counted so. */
export const UNREGISTERED_REQUESTER = {
  entry: 'requester',
  metric: DeliveryMetric.UnknownRequesterRequests,
} as const satisfies UnregisteredCaller<DeliveryMetric>;
