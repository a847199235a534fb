/** Where a delivery is, as the Delivery service records it and every reader reports it. */
import { EventType, type LifecycleEventType } from './events';

export const DeliveryStatus = {
  /** Accepted by ingestion; the Delivery service has published nothing about it yet. */
  Requested: 'Requested',
  /** The Delivery service waits for the package and drone replies (either may come first). */
  Correlating: 'Correlating',
  Scheduled: 'Scheduled',
  PickedUp: 'PickedUp',
  Delivered: 'Delivered',
  Failed: 'Failed',
  Cancelled: 'Cancelled',
} as const;
export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];
export const DELIVERY_STATUSES = Object.values(DeliveryStatus) as [DeliveryStatus, ...DeliveryStatus[]];

/** Whether a caller's text (a query parameter, a CLI flag) names a delivery status. */
export function isDeliveryStatus(value: unknown): value is DeliveryStatus {
  return (DELIVERY_STATUSES as readonly unknown[]).includes(value);
}

export const TERMINAL_DELIVERY_STATUSES: readonly DeliveryStatus[] = [
  DeliveryStatus.Delivered,
  DeliveryStatus.Failed,
  DeliveryStatus.Cancelled,
];

export function isTerminalStatus(status: DeliveryStatus): boolean {
  return TERMINAL_DELIVERY_STATUSES.includes(status);
}

/** The status each lifecycle event leaves the delivery in. */
export const STATUS_AFTER: Readonly<Record<LifecycleEventType, DeliveryStatus>> = {
  [EventType.DeliveryScheduled]: DeliveryStatus.Scheduled,
  [EventType.PickedUp]: DeliveryStatus.PickedUp,
  [EventType.Delivered]: DeliveryStatus.Delivered,
  [EventType.DeliveryFailed]: DeliveryStatus.Failed,
  [EventType.DeliveryCancelled]: DeliveryStatus.Cancelled,
};
