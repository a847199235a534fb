import { type Clock, isoAt } from '../../shared/clock';
import { describeError } from '../../shared/errors';
import { ownedBy } from '../../shared/owned-by';
import type { OrderStatusBody, SubmitOrderRequest, WorkflowTimings } from '../contracts';
import { type AdmissionSlot, admissionSlotOrder, retryAfterSeconds } from './admission';
import { conflictingOrderFields, type OrderData, orderDataFrom, orderFingerprint } from './order';
import type {
  ConflictQueue,
  DrainReader,
  EventLog,
  OrderAcceptance,
  OrdersReader,
  StartQueue,
  StateRecordReader,
} from './ports';
import { buildInitialStateRecord, toOrderStatusBody } from './state-record';

export interface SubmissionDependencies {
  readonly orders: OrdersReader;
  readonly states: StateRecordReader;
  readonly acceptance: OrderAcceptance;
  readonly drain: DrainReader;
  readonly startQueue: StartQueue;
  readonly conflictQueue: ConflictQueue;
  readonly clock: Clock;
  readonly timings: Pick<WorkflowTimings, 'startGraceSeconds'>;
  readonly dueShardCount: number;
  /** The workflow version new orders get (the deployment's workflow.current); never changes after. */
  readonly workflowVersion: number;
  /**
   * Admission control: at most `limit` in-flight orders over `shards` counters, and at most
   * `clientCaps[clientId]` of one client's (its share; none listed: only the limit).
   */
  readonly admission: {
    readonly limit: number;
    readonly shards: number;
    readonly clientCaps?: Readonly<Record<string, number>>;
  };
  /** The deployment's retry budget (calls per operation), written into each new record. */
  readonly retryBudget: number;
  readonly log: EventLog;
}

export type SubmissionOutcome =
  | {
      readonly kind: 'accepted';
      readonly orderId: string;
      /** The admission counter the order's slot was taken from. */
      readonly admissionShard: string;
      /** False when the start message could not be sent; the supervisor re-queues the order later. */
      readonly startQueued: boolean;
    }
  | { readonly kind: 'duplicate'; readonly status: OrderStatusBody }
  /** The orderId is another client's order: nothing is written, and nothing of that order is told (otherClientRefusal). */
  | { readonly kind: 'other-client'; readonly orderId: string }
  | {
      readonly kind: 'conflict';
      readonly orderId: string;
      readonly storedFingerprint: string;
      readonly submittedFingerprint: string;
      /** The fields that differ from the stored order (the submitter's own): empty when unknown. */
      readonly fields: readonly string[];
    }
  /**
   * No slot: every admission counter tried is at its cap (`limit`), or every try was refused by the
   * client's own counters (`client-share`: the client holds its whole share). Nothing was stored;
   * the client should retry later.
   */
  | {
      readonly kind: 'rejected';
      readonly orderId: string;
      readonly retryAfterSeconds: number;
      readonly reason: 'limit' | 'client-share';
    };

/**
 * Accepts an order. The order, its state record and an admission slot are written in one
 * transaction, tried on the order's own counter first and then on the others (admissionSlotOrder):
 * either all three are stored or nothing is. A resubmission (the order or its record exists) is
 * answered from what is stored and never takes a slot: an orderId another client holds is
 * refused before any comparison, identical data gets the current status,
 * conflicting data goes to the conflict queue (no alert: the handler counts it and an alarm watches the rate). Every counter full: rejected,
 * with a Retry-After from the observed drain, and nothing stored. The start message is sent only
 * by the call that created the state record.
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
  const storedOrder = { ...order, fingerprint, createdAt: isoAt(now) };
  const recordHolding = (slot: AdmissionSlot) =>
    buildInitialStateRecord({
      ...(slot.client !== undefined && { admissionClientShard: slot.client.key }),
      orderId: order.orderId,
      orderFingerprint: fingerprint,
      now,
      timings: deps.timings,
      dueShardCount: deps.dueShardCount,
      workflowVersion: deps.workflowVersion,
      admissionShard: slot.key,
      clientId: context.clientId,
      retryBudget: deps.retryBudget,
    });

  const clientCap = deps.admission.clientCaps?.[context.clientId];
  const slots = admissionSlotOrder(
    order.orderId,
    deps.admission.limit,
    deps.admission.shards,
    clientCap === undefined ? undefined : { clientId: context.clientId, cap: clientCap },
  );
  let orderAlreadyStored = false;
  let refusedByShareOnly = true;
  for (let index = 0; index < slots.length; ) {
    const slot = slots[index] as AdmissionSlot;
    const result = await deps.acceptance.accept({
      order: storedOrder,
      record: recordHolding(slot),
      slot,
      orderAlreadyStored,
    });
    if (result === 'accepted') {
      return { ...(await queueStart(order.orderId, context, deps)), admissionShard: slot.key };
    }
    if (result === 'shard-full' || result === 'client-share-full') {
      if (result === 'shard-full') refusedByShareOnly = false;
      index += 1;
      continue;
    }
    const existing = await resubmission(order, fingerprint, context, deps);
    if (existing !== 'order-only') return existing;
    if (orderAlreadyStored) {
      throw new Error(`Order '${order.orderId}': the stored order no longer matches its check`);
    }
    // The identical order is stored without a state record: a request cut short before
    // acceptance was one transaction. Accept it now, on the same counter, checking the order.
    orderAlreadyStored = true;
  }
  return {
    kind: 'rejected',
    orderId: order.orderId,
    retryAfterSeconds: retryAfterSeconds(await deps.drain.read(), deps.clock.now()),
    reason: clientCap !== undefined && slots.length > 0 && refusedByShareOnly ? 'client-share' : 'limit',
  };
}

/** What is stored under a resubmitted orderId: the answer, or 'order-only' (no state record yet). */
async function resubmission(
  order: OrderData,
  fingerprint: string,
  context: { readonly correlationId: string; readonly rawBody: string; readonly clientId: string },
  deps: SubmissionDependencies,
): Promise<SubmissionOutcome | 'order-only'> {
  const { orderId } = order;
  const stateRecord = await deps.states.get(orderId);
  // Order ids are one namespace for all clients: an id another client holds is refused even with
  // identical data (it is that client's order), before any fingerprint comparison, and takes no slot.
  if (stateRecord !== undefined && !ownedBy(stateRecord.clientId, context.clientId)) {
    return { kind: 'other-client', orderId };
  }
  const storedOrder = await deps.orders.get(orderId);
  if (storedOrder !== undefined && storedOrder.fingerprint !== fingerprint) {
    // Fields only to the order's known owner: an order stored without its record names no client.
    const fields = stateRecord === undefined ? [] : conflictingOrderFields(storedOrder, order);
    return rejectConflict(
      orderId,
      { stored: storedOrder.fingerprint, submitted: fingerprint, fields },
      context,
      deps,
    );
  }
  if (stateRecord !== undefined) {
    if (stateRecord.orderFingerprint !== fingerprint) {
      // No stored order to compare with (a record without its order): the fields are not known.
      const fingerprints = { stored: stateRecord.orderFingerprint, submitted: fingerprint, fields: [] };
      return rejectConflict(orderId, fingerprints, context, deps);
    }
    return { kind: 'duplicate', status: toOrderStatusBody(stateRecord) };
  }
  if (storedOrder === undefined) {
    // Nothing deletes orders or records, so a refused create with neither stored is not a resubmission.
    throw new Error(`Order '${orderId}' was refused as existing, but neither it nor its record is stored`);
  }
  return 'order-only';
}

async function queueStart(
  orderId: string,
  context: { readonly correlationId: string },
  deps: SubmissionDependencies,
): Promise<{ readonly kind: 'accepted'; readonly orderId: string; readonly startQueued: boolean }> {
  try {
    await deps.startQueue.send({ orderId, reason: 'submitted', correlationId: context.correlationId });
    return { kind: 'accepted', orderId, startQueued: true };
  } catch (error) {
    // The order is accepted (order, record and slot are stored): the Pending record expires after
    // startGrace and the supervisor re-queues it. Failing the request would only invite a resubmission.
    deps.log.error('Start message not sent; the supervisor will re-queue the order', {
      orderId,
      error: describeError(error),
    });
    return { kind: 'accepted', orderId, startQueued: false };
  }
}

async function rejectConflict(
  orderId: string,
  difference: { readonly stored: string; readonly submitted: string; readonly fields: readonly string[] },
  context: { readonly correlationId: string; readonly rawBody: string },
  deps: SubmissionDependencies,
): Promise<SubmissionOutcome> {
  await deps.conflictQueue.send({
    orderId,
    correlationId: context.correlationId,
    receivedAt: isoAt(deps.clock.now()),
    storedFingerprint: difference.stored,
    submittedFingerprint: difference.submitted,
    rawBody: context.rawBody,
  });
  return {
    kind: 'conflict',
    orderId,
    storedFingerprint: difference.stored,
    submittedFingerprint: difference.submitted,
    fields: difference.fields,
  };
}
