/**
 * Who owns a record of the client API, in both wings (an order's ClientId, a delivery's
 * requesterId): only the caller that submitted it may see or resubmit it. Another caller's record
 * is answered as if it did not exist (GET 404) or as an id that is not available (POST 409), so a
 * caller learns nothing of another's. One comparison for both wings, as the caller is found once
 * (holder-of-api-key.ts).
 */

/**
 * Whether the record whose owner is `owner` belongs to `callerId`. A record without an owner
 * (accepted before the wing had clients or requesters) belongs to nobody: no caller sees it through
 * the client API (operators still do).
 */
export function ownedBy(owner: string | undefined, callerId: string): boolean {
  return owner !== undefined && owner === callerId;
}
