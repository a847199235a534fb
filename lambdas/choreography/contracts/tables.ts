/**
 * The layout every service table shares, so one outbox relay and one stream filter serve them all:
 * a string partition key, a TTL attribute (processed-message markers expire), and the change log
 * attribute holding the events an item's last changes emitted.
 */
import { ServiceName } from './names';

export const TABLE_PARTITION_KEY = 'pk';
export const TABLE_TTL_ATTRIBUTE = 'expiresAt';
/**
 * The single-item change log (transactional outbox): a list attribute of OutboxEntry on the item
 * whose state the events describe, appended in the same conditional write as the state change.
 * DynamoDB Streams keep order per item, so the relay publishes one item's events in order.
 */
export const OUTBOX_ATTRIBUTE = 'outbox';
/**
 * The producer's last sequence number for the delivery, a number on every item that carries a change
 * log: the outbox relay's stream filter selects records by it (filters match leaf values only, and
 * the change log is a list of maps).
 */
export const SEQUENCE_ATTRIBUTE = 'sequence';

/**
 * The remediation table's item for one subject (a delivery): its decisions. The remediation consumer
 * writes it and the operator trail reads it, so its key format lives here, not in either adapter.
 */
export const remediationKeyOf = (key: string) => `REMEDIATION#${key}`;

/** A global secondary index of a service table: string keys, only the listed attributes projected. */
export interface ServiceTableIndex {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly projectedAttributes: readonly string[];
}

/**
 * The ingestion read model's deliveries by status, newest accepted first: the operators' list
 * (GET /operator/deliveries) queries at most DELIVERY_LIST_MAX items of each status, whatever the
 * table holds. Sparse: only delivery items carry both keys (processed-message markers do not).
 * The keys are attributes of the delivery item (domain/ingestion.ts DeliveryRecord: `status`,
 * `acceptedAt`); the projection is what a list row shows besides them and the table key.
 */
export const DELIVERIES_BY_STATUS_INDEX = {
  name: 'DeliveriesByStatus',
  partitionKey: 'status',
  sortKey: 'acceptedAt',
  projectedAttributes: ['correlationId', 'updatedAt'],
} as const satisfies ServiceTableIndex;

/** The indexes of each service's table (the others have none); the stack and test tables read it. */
export const SERVICE_TABLE_INDEXES: Readonly<Partial<Record<ServiceName, readonly ServiceTableIndex[]>>> = {
  [ServiceName.Ingestion]: [DELIVERIES_BY_STATUS_INDEX],
};
