import { createHash } from 'node:crypto';
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
 * JSON with object keys sorted at every level and no whitespace, so equal data always serialises to
 * the same bytes whatever the key order of the request. Array order is kept: it is part of the data.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new Error(`canonicalJson: cannot encode non-finite number ${value}`);
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((element) => canonicalJson(element)).join(',')}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  throw new Error(`canonicalJson: cannot encode a value of type ${typeof value}`);
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
  return createHash('sha256').update(canonicalJson(immutable), 'utf8').digest('hex');
}

/** The orders table keeps items as canonical JSON so the state machine can read them with StringToJson. */
export function itemsToStoredJson(items: readonly OrderItem[]): string {
  return canonicalJson(items.map((item) => ({ sku: item.sku, quantity: item.quantity })));
}
