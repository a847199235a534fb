/**
 * The delivery API's operator routes (AWS_IAM, SigV4; never the requesters' API key): what the
 * operator console's Deliveries tab and `npm run deliveries` read, all by signed calls to these
 * routes (locally through the console's backend, bin/console-server.ts).
 */
import * as z from 'zod';
import type { DeliveryStatusBody } from './api';

/**
 * The trail route's ChoreographyEnvKey.DeliveryTables (JSON): the table of each service that holds a
 * delivery's items. The construct writes it, the handler validates it at load.
 */
export const DeliveryTablesSchema = z
  .object({
    ingestion: z.string().min(1),
    package: z.string().min(1),
    droneScheduler: z.string().min(1),
    delivery: z.string().min(1),
    remediation: z.string().min(1),
  })
  .strict();
export type DeliveryTables = z.infer<typeof DeliveryTablesSchema>;

/** Paths under the stage, as the console calls them. */
export const OperatorDeliveryRoute = {
  /** GET ?status: the deliveries the ingestion read model holds, newest first (DeliveryListBody). */
  deliveries: '/operator/deliveries',
  /** GET: one delivery's status and its trail across services (DeliveryDetailBody). */
  delivery: (deliveryId: string) => `/operator/deliveries/${encodeURIComponent(deliveryId)}`,
  /** The `{deliveryId}` path parameter of `delivery`. */
  deliveryIdParameter: 'deliveryId',
} as const;

/** Newest first, at most this many: the console's list is a glance (the CLI lists them all). */
export const DELIVERY_LIST_MAX = 200;

export interface DeliveryRow {
  readonly deliveryId: string;
  readonly status: string;
  readonly correlationId?: string;
  readonly acceptedAt?: string;
  readonly updatedAt?: string;
}

export interface DeliveryListBody {
  /** Newest first, at most DELIVERY_LIST_MAX. */
  readonly items: readonly DeliveryRow[];
}

/** One entry of a delivery's trail: an event a service published, an alert, or a dead letter and its decision. */
export interface DeliveryTrailEntry {
  readonly at: string;
  readonly service: string;
  readonly kind: 'event' | 'alert' | 'dead-letter';
  /** Event type, DeliveryNeedsOperator, or the dead letter's reason code. */
  readonly what: string;
  readonly sequence?: number;
  readonly to?: string;
  readonly detail: string;
  readonly correlationId?: string;
  /** A dead letter's: the service whose dead-letter queue held it (the console's swimlane puts it on that lane). */
  readonly source?: string;
  /** A dead letter's: what remediation decided (RETRY, PIVOT, COMPENSATE, GIVE_UP). */
  readonly decision?: string;
}

export interface DeliveryDetailBody {
  readonly deliveryId: string;
  /** The delivery's status as GET /deliveries/{id} answers it, when the read model holds it. */
  readonly status?: DeliveryStatusBody;
  /** Why there is no status, in words. */
  readonly statusError?: string;
  /** Every service's entries, in time order. */
  readonly trail: readonly DeliveryTrailEntry[];
}
