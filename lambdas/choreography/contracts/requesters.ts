/**
 * The delivery requesters as the ingestion handlers know them (ChoreographyEnvKey.RequesterRegistry,
 * JSON): the caller's API key id (API Gateway's requestContext.identity.apiKeyId) maps to its
 * requester. Written by the stack from the configuration (lib/choreography/config.ts `requesters`).
 */
import * as z from 'zod';
import { distinctFields } from '../../shared/distinct-fields';

export const RequesterRegistrySchema = z
  .array(
    z
      .object({
        requesterId: z.string().min(1),
        /** The id of the requester's API key. */
        apiKeyId: z.string().min(1),
      })
      .strict(),
  )
  .min(1)
  .superRefine(distinctFields(['requesterId', 'apiKeyId']));
export type RequesterRegistry = z.infer<typeof RequesterRegistrySchema>;
export type RegisteredRequester = RequesterRegistry[number];
