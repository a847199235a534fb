/**
 * What a submission needs: the business orders, the state record it creates, and the conflict queue.
 */
import type { StoredOrder } from '../order';
import type { StateRecord } from '../state-record';
import type { CreateIfAbsentResult } from './common';

export interface OrdersRepository {
  createIfAbsent(order: StoredOrder): Promise<CreateIfAbsentResult<StoredOrder>>;
}

export interface OrdersReader {
  get(orderId: string): Promise<StoredOrder | undefined>;
}

export interface StateRecordReader {
  get(orderId: string): Promise<StateRecord | undefined>;
}

export interface StateRecordCreator {
  createIfAbsent(record: StateRecord): Promise<CreateIfAbsentResult<StateRecord>>;
}

/** A conflicting resubmission, kept on the conflict dead-letter queue for an operator. */
export interface SubmissionConflictReport {
  readonly orderId: string;
  readonly correlationId: string;
  readonly receivedAt: string;
  readonly storedFingerprint: string;
  readonly submittedFingerprint: string;
  /** The request body exactly as received (decoded), so it can be inspected or resubmitted. */
  readonly rawBody: string;
}

export interface ConflictQueue {
  send(report: SubmissionConflictReport): Promise<void>;
}
