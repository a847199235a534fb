/**
 * The 409 a client gets for an orderId another client holds. Order ids are one namespace for all
 * clients (README, "Order ids and clients": why not one namespace per client), so the id cannot be
 * given; the answer says only that. It is the same text whatever the other order holds (its data,
 * its state, which client): it names neither the owner nor that data differs, so a client learns
 * nothing of another's order but that the id is taken.
 */
export function otherClientRefusal(orderId: string): string {
  return `Order id '${orderId}' is not available; choose another orderId`;
}
