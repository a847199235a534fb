/**
 * The status notifier's decision (DESIGN.md, Per-client reply queues): from a state record's stream
 * images to the one message its client is told, or nothing. Pure, so the decision table is tested
 * without a stream; the adapter turns stream records into StatusChange and sends what this returns.
 */
import {
  type ClientRegistry,
  type ClientStatus,
  type ClientStatusMessage,
  clientMessageKey,
  clientStatusFor,
  ProcessState,
  ClientStatus as Status,
} from '../contracts';
import { clientById } from './clients';
import type { ClientReplySender, EventLog } from './ports';

/** What the notifier reads of a state record image. */
export interface StatusImage {
  readonly orderId: string;
  readonly processState: string;
  readonly updatedAt: string;
  readonly clientId?: string;
  /** Read for the flow metrics (flow-metrics.ts): failed attempts so far, and the submission time. */
  readonly failureCount?: number;
  readonly createdAt?: string;
}

/** One stream record in domain terms. */
export interface StatusChange {
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly newImage?: StatusImage;
  readonly oldImage?: Pick<StatusImage, 'processState'>;
}

export type ClientNotice =
  | { readonly kind: 'nothing' }
  | {
      readonly kind: 'tell';
      /** The record's ClientId; undefined when the record names none (then no one can be told). */
      readonly clientId: string | undefined;
      readonly orderId: string;
      readonly status: ClientStatus;
      readonly processState: string;
      readonly at: string;
    };

const PROCESS_STATES = new Set<string>(Object.values(ProcessState));

/**
 * - INSERT: the order was accepted: `Received`.
 * - MODIFY: only when ProcessState changed and the new state is one the client is told
 *   (clientStatusFor). A retried attempt (Processing -> Pending -> Processing) and every step or
 *   lock update within a state tell nothing.
 * - REMOVE, or anything without a new image: nothing.
 */
export function decideClientNotice(change: StatusChange): ClientNotice {
  const image = change.newImage;
  if (image === undefined) return { kind: 'nothing' };
  const tell = (status: ClientStatus): ClientNotice => ({
    kind: 'tell',
    clientId: image.clientId,
    orderId: image.orderId,
    status,
    processState: image.processState,
    at: image.updatedAt,
  });
  if (change.eventName === 'INSERT') return tell(Status.Received);
  if (change.eventName !== 'MODIFY') return { kind: 'nothing' };
  if (change.oldImage?.processState === image.processState) return { kind: 'nothing' };
  if (!PROCESS_STATES.has(image.processState)) return { kind: 'nothing' };
  const status = clientStatusFor(image.processState as ProcessState);
  return status === undefined ? { kind: 'nothing' } : tell(status);
}

/** The message body of a notice (ClientStatusMessageSchema). */
export function clientStatusMessage(
  notice: Extract<ClientNotice, { kind: 'tell' }>,
  clientId: string,
): ClientStatusMessage {
  return {
    schemaVersion: 1,
    orderId: notice.orderId,
    clientId,
    status: notice.status,
    processState: notice.processState,
    at: notice.at,
    messageKey: clientMessageKey(notice.orderId, notice.status, notice.at),
  };
}

export interface NotifyDependencies {
  readonly registry: ClientRegistry;
  readonly replies: ClientReplySender;
  readonly log: EventLog;
}

export type NotifyOutcome =
  | { readonly kind: 'nothing' }
  | { readonly kind: 'sent'; readonly clientId: string; readonly status: ClientStatus }
  | { readonly kind: 'unroutable'; readonly orderId: string; readonly clientId: string | undefined };

/**
 * Tells the client of one change. A record no client can be told about (no ClientId, or a client
 * no longer configured) is reported, not retried: retrying cannot make a client appear, and a
 * failed record would hold up the stream shard behind it. A send failure throws (retried).
 */
export async function notifyClient(change: StatusChange, deps: NotifyDependencies): Promise<NotifyOutcome> {
  const notice = decideClientNotice(change);
  if (notice.kind === 'nothing') return notice;
  const client = clientById(deps.registry, notice.clientId);
  if (client === undefined) {
    deps.log.warn('Status change not told: the record names no registered client', {
      orderId: notice.orderId,
      clientId: notice.clientId ?? null,
      status: notice.status,
    });
    return { kind: 'unroutable', orderId: notice.orderId, clientId: notice.clientId };
  }
  const message = clientStatusMessage(notice, client.clientId);
  await deps.replies.send(client.replyQueueUrl, message);
  deps.log.info('Client told', { orderId: notice.orderId, clientId: client.clientId, status: notice.status });
  return { kind: 'sent', clientId: client.clientId, status: notice.status };
}
