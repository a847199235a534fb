import { canonicalJson, fingerprintOf } from '../../shared/fingerprint';
import type { OrderItem, SubmitOrderRequest } from '../contracts';

/** The immutable data of an order: what a resubmission must repeat exactly to be "the same order". */
export interface OrderData {
  readonly orderId: string;
  readonly customerId: string;
  readonly items: readonly OrderItem[];
  readonly totalCents: number;
  readonly currency: string;
}

/** An order as stored in the orders table (the business database). */
export interface StoredOrder extends OrderData {
  readonly fingerprint: string;
  readonly createdAt: string;
}

export function orderDataFrom(request: SubmitOrderRequest): OrderData {
  return {
    orderId: request.orderId,
    customerId: request.customerId,
    items: request.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
    totalCents: request.totalCents,
    currency: request.currency,
  };
}

/**
 * SHA-256 (hex) of the canonical JSON of the immutable order fields. Only the listed fields are
 * hashed, so an extra property on the object can never make two equal orders look different.
 */
export function orderFingerprint(order: OrderData): string {
  const immutable = {
    orderId: order.orderId,
    customerId: order.customerId,
    items: order.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
    totalCents: order.totalCents,
    currency: order.currency,
  };
  return fingerprintOf(immutable);
}

/**
 * The immutable order fields (those orderFingerprint hashes) whose values differ between the
 * stored order and a resubmission of it, in name order: what the owner's 409 names.
 */
export function conflictingOrderFields(stored: OrderData, submitted: OrderData): string[] {
  const fields = ['currency', 'customerId', 'items', 'totalCents'] as const;
  const items = (order: OrderData) => order.items.map((item) => ({ sku: item.sku, quantity: item.quantity }));
  const canonical = (order: OrderData, field: (typeof fields)[number]) =>
    canonicalJson(field === 'items' ? items(order) : order[field]);
  return fields.filter((field) => canonical(stored, field) !== canonical(submitted, field));
}

/** The orders table keeps items as canonical JSON so the state machine can read them with StringToJson. */
export function itemsToStoredJson(items: readonly OrderItem[]): string {
  return canonicalJson(items.map((item) => ({ sku: item.sku, quantity: item.quantity })));
}
