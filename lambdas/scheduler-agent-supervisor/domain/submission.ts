import { type Clock, isoAt } from '../../shared/clock';
import { describeError } from '../../shared/errors';
import type { OrderStatusBody, SubmitOrderRequest, WorkflowTimings } from '../contracts';
import { orderDataFrom, orderFingerprint } from './order';
import type {
  AlertPublisher,
  ConflictQueue,
  EventLog,
  OrdersRepository,
  StartQueue,
  StateRecordCreator,
} from './ports';
import { buildInitialStateRecord, toOrderStatusBody } from './state-record';

export interface SubmissionDependencies {
  readonly orders: OrdersRepository;
  readonly states: StateRecordCreator;
  readonly startQueue: StartQueue;
  readonly conflictQueue: ConflictQueue;
  readonly alerts: AlertPublisher;
  readonly clock: Clock;
  readonly timings: Pick<WorkflowTimings, 'startGraceSeconds'>;
  readonly dueShardCount: number;
  readonly log: EventLog;
}

export type SubmissionOutcome =
  | {
      readonly kind: 'accepted';
      readonly orderId: string;
      /** False when the start message could not be sent; the supervisor re-queues the order later. */
      readonly startQueued: boolean;
    }
  | { readonly kind: 'duplicate'; readonly status: OrderStatusBody }
  /** The orderId is another client's order: nothing is written, and that order is not shown. */
  | { readonly kind: 'other-client'; readonly orderId: string }
  | {
      readonly kind: 'conflict';
      readonly orderId: string;
      readonly storedFingerprint: string;
      readonly submittedFingerprint: string;
    };

/**
 * Accepts an order. The orders table and the state store share no transaction, so each write is
 * create-when-missing and a retry after a partial failure converges: an existing item is accepted
 * only if its fingerprint matches, and the start message is sent only by the call that created the
 * state record. Conflicting data is never written; it goes to the conflict queue and raises an alert.
 */
export async function submitOrder(
  request: SubmitOrderRequest,
  context: {
    readonly correlationId: string;
    readonly rawBody: string;
    /** The submitting client (the registry's client of the request's API key). */
    readonly clientId: string;
  },
  deps: SubmissionDependencies,
): Promise<SubmissionOutcome> {
  const order = orderDataFrom(request);
  const fingerprint = orderFingerprint(order);
  const now = deps.clock.now();

  const storedOrder = await deps.orders.createIfAbsent({ ...order, fingerprint, createdAt: isoAt(now) });
  if (!storedOrder.created && storedOrder.existing.fingerprint !== fingerprint) {
    return rejectConflict(order.orderId, storedOrder.existing.fingerprint, fingerprint, context, deps);
  }

  const initial = buildInitialStateRecord({
    orderId: order.orderId,
    orderFingerprint: fingerprint,
    now,
    timings: deps.timings,
    dueShardCount: deps.dueShardCount,
    clientId: context.clientId,
  });
  const stateRecord = await deps.states.createIfAbsent(initial);
  if (!stateRecord.created) {
    // Order ids are one namespace for all clients: an id another client holds is refused even with
    // identical data (it is that client's order), before any fingerprint comparison.
    if (stateRecord.existing.clientId !== context.clientId) {
      return { kind: 'other-client', orderId: order.orderId };
    }
    if (stateRecord.existing.orderFingerprint !== fingerprint) {
      return rejectConflict(order.orderId, stateRecord.existing.orderFingerprint, fingerprint, context, deps);
    }
    return { kind: 'duplicate', status: toOrderStatusBody(stateRecord.existing) };
  }

  try {
    await deps.startQueue.send({
      orderId: order.orderId,
      reason: 'submitted',
      correlationId: context.correlationId,
    });
    return { kind: 'accepted', orderId: order.orderId, startQueued: true };
  } catch (error) {
    // Both writes are done, so the order is accepted: the Pending record expires after startGrace
    // and the supervisor re-queues it. Failing the request here would only invite a resubmission.
    deps.log.error('Start message not sent; the supervisor will re-queue the order', {
      orderId: order.orderId,
      error: describeError(error),
    });
    return { kind: 'accepted', orderId: order.orderId, startQueued: false };
  }
}

async function rejectConflict(
  orderId: string,
  storedFingerprint: string,
  submittedFingerprint: string,
  context: { readonly correlationId: string; readonly rawBody: string },
  deps: SubmissionDependencies,
): Promise<SubmissionOutcome> {
  await deps.conflictQueue.send({
    orderId,
    correlationId: context.correlationId,
    receivedAt: isoAt(deps.clock.now()),
    storedFingerprint,
    submittedFingerprint,
    rawBody: context.rawBody,
  });
  await deps.alerts.submissionConflict({
    orderId,
    storedFingerprint,
    submittedFingerprint,
    correlationId: context.correlationId,
  });
  return { kind: 'conflict', orderId, storedFingerprint, submittedFingerprint };
}
