/**
 * What the status notifier needs: a client's reply queue.
 */
import type { ClientStatusMessage } from '../../contracts';

/** A client's reply queue (FIFO): one message group per order, de-duplicated on the message key. */
export interface ClientReplySender {
  send(queueUrl: string, message: ClientStatusMessage): Promise<void>;
}
