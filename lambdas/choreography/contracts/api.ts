/** The delivery API: POST /deliveries and GET /deliveries/{deliveryId}. */
import * as z from 'zod';
import { type ErrorResponseBody, printableText } from '../../shared/validation';
import { CoordinatesSchema, DeliveryIdSchema, type EventType, PackageSchema } from './events';
import type { ReasonCode } from './reason-codes';
import type { DeliveryStatus } from './statuses';

/** Largest accepted POST /deliveries body, in bytes (checked before parsing): 413 past it. */
export const MAX_DELIVERY_BODY_BYTES = 8 * 1024;

/**
 * POST /deliveries body. Strict, unlike the events: a client's unknown field is a mistake to
 * report, not a newer schema to tolerate. `deadline` must be in the future (checked by the domain,
 * which knows the time). `ownerId`, the one free-text string, is printable text in NFC
 * (printableText); the ids are limited to ASCII letters and digits by their pattern.
 */
export const SubmitDeliveryRequestSchema = z
  .object({
    deliveryId: DeliveryIdSchema,
    ownerId: z.string().min(1).max(128).check(printableText()),
    pickup: CoordinatesSchema.strict(),
    dropoff: CoordinatesSchema.strict(),
    packages: z.array(PackageSchema.strict()).min(1).max(5),
    deadline: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();
export type SubmitDeliveryRequest = z.infer<typeof SubmitDeliveryRequestSchema>;

/** One entry of a delivery's history as GET /deliveries/{id} returns it. */
export interface DeliveryHistoryEntry {
  readonly type: EventType;
  readonly schemaVersion: number;
  /** The producer's per-delivery sequence number. */
  readonly sequence: number;
  readonly producer: string;
  readonly occurredAt: string;
  readonly reasonCode?: ReasonCode;
}

/** 202 (new), 200 (identical resubmission) and GET body. */
export interface DeliveryStatusBody {
  readonly deliveryId: string;
  readonly status: DeliveryStatus;
  readonly correlationId: string;
  readonly acceptedAt: string;
  readonly updatedAt: string;
  readonly history: readonly DeliveryHistoryEntry[];
}

/**
 * The 409 body for a deliveryId another requester holds (DESIGN.md "Requesters"): the same whatever
 * that delivery holds, naming neither its requester nor that data differs, so a requester learns
 * nothing of another's delivery but that the id is taken. Written once for submit-delivery and the
 * tooling that answers as it would (lib/harness/past-the-door-outcome.ts).
 */
export function deliveryIdUnavailable(deliveryId: string): ErrorResponseBody {
  return {
    message: `Delivery id '${deliveryId}' is not available; choose another deliveryId`,
    errors: [{ path: DeliveryApiRoute.DeliveryIdParameter, message: 'is not available' }],
  };
}

export const DeliveryApiRoute = {
  Deliveries: 'deliveries',
  DeliveryIdParameter: 'deliveryId',
} as const;
