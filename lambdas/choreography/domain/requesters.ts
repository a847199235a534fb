/**
 * Who owns a delivery (DESIGN.md "Requesters"): whether the requester whose API key API Gateway
 * authenticated (shared/holder-of-api-key.ts) may see or resubmit it. Another requester's
 * delivery is answered as if it did not exist (GET) or as an id that is not available (POST), so a
 * requester learns nothing of another's pickup, drop-off or status.
 */
/**
 * Whether `requesterId` owns the delivery. A record without requesterId (accepted before requesters
 * existed) belongs to no requester: no requester sees it through the API (operators still do).
 */
export function ownsDelivery(record: { readonly requesterId?: string }, requesterId: string): boolean {
  return record.requesterId === requesterId;
}
