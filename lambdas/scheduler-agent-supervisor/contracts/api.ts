import { z } from 'zod';
import type { ProcessState, StepStatus } from './states';
import type { StepName } from './steps';

/** Largest accepted POST /orders body, in bytes (checked before parsing). */
export const MAX_ORDER_BODY_BYTES = 16 * 1024;

export const ORDER_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** POST /orders body. Strict: unknown fields are rejected, not ignored. */
export const SubmitOrderRequestSchema = z
  .object({
    orderId: z.string().regex(ORDER_ID_PATTERN, 'must be 1-64 characters of A-Z a-z 0-9 _ -'),
    customerId: z.string().min(1).max(128),
    items: z
      .array(
        z
          .object({
            sku: z.string().min(1).max(64),
            quantity: z.number().int().min(1).max(10_000),
          })
          .strict(),
      )
      .min(1)
      .max(50),
    totalCents: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter ISO 4217 code in capitals'),
  })
  .strict();
export type SubmitOrderRequest = z.infer<typeof SubmitOrderRequestSchema>;
export type OrderItem = SubmitOrderRequest['items'][number];

/** 202 body of a newly accepted order. */
export interface AcceptedOrderBody {
  readonly orderId: string;
  readonly processState: ProcessState;
}

/** GET /orders/{orderId} (and 200 on identical resubmission). */
export interface OrderStatusBody {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly failureCount: number;
  readonly attempt: number;
  readonly steps: readonly { readonly name: StepName; readonly status: StepStatus }[];
  readonly updatedAt: string;
}

/** API routes, shared by the API construct and the black-box tests. */
export const ApiRoute = {
  orders: '/orders',
  order: (orderId: string) => `/orders/${encodeURIComponent(orderId)}`,
  orderPathParameter: 'orderId',
} as const;
