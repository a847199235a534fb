/**
 * Who is asking, and who owns a delivery (DESIGN.md "Requesters"): the requester whose API key API
 * Gateway authenticated, and whether it may see or resubmit a delivery. Another requester's
 * delivery is answered as if it did not exist (GET) or as an id that is not available (POST), so a
 * requester learns nothing of another's pickup, drop-off or status.
 */
import type { RegisteredRequester, RequesterRegistry } from '../contracts';

/** The requester whose API key API Gateway authenticated; undefined for a key of no registered requester. */
export function requesterOfApiKey(
  registry: RequesterRegistry,
  apiKeyId: string | null | undefined,
): RegisteredRequester | undefined {
  if (!apiKeyId) return undefined;
  return registry.find((requester) => requester.apiKeyId === apiKeyId);
}

/**
 * Whether `requesterId` owns the delivery. A record without requesterId (accepted before requesters
 * existed) belongs to no requester: no requester sees it through the API (operators still do).
 */
export function ownsDelivery(record: { readonly requesterId?: string }, requesterId: string): boolean {
  return record.requesterId === requesterId;
}
