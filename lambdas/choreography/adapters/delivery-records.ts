/**
 * Ingestion's table through the kit's store: a submission is a create-if-absent commit of the
 * DELIVERY# item with its DeliveryRequested in the change log (one write: accepted means published,
 * eventually, by the relay); a resubmission reads what is stored and compares fingerprints (another requester's id: unavailable).
 */
import { ownedBy } from '../../shared/owned-by';
import { ServiceName, type SubmitDeliveryRequest } from '../contracts';
import { conflictingFields, type DeliveryRecord, deliveryKeyOf, newDelivery } from '../domain/ingestion';
import type { DynamoServiceStore } from './service-store';

export type SubmitOutcome =
  | { readonly kind: 'accepted'; readonly record: DeliveryRecord }
  | { readonly kind: 'identical'; readonly record: DeliveryRecord }
  | { readonly kind: 'conflict'; readonly fields: readonly string[] }
  /** The id is another requester's: nothing about that delivery may be told. */
  | { readonly kind: 'unavailable' };

export class DeliveryRecords {
  constructor(private readonly store: Pick<DynamoServiceStore, 'load' | 'commit'>) {}

  async submit(
    request: SubmitDeliveryRequest,
    correlationId: string,
    now: Date,
    requesterId: string,
  ): Promise<SubmitOutcome> {
    const { record, emissions } = newDelivery(request, correlationId, now, requesterId);
    const outcome = await this.store.commit({
      key: deliveryKeyOf(request.deliveryId),
      read: undefined,
      change: {
        state: record as unknown as Record<string, unknown>,
        emissions,
        producer: ServiceName.Ingestion,
        deliveryId: request.deliveryId,
        correlationId,
      },
      now,
    });
    if (outcome.kind === 'committed') return { kind: 'accepted', record };
    const existing = await this.get(request.deliveryId);
    if (!existing) throw new Error(`Delivery ${request.deliveryId} existed at write time but is gone now`);
    if (!ownedBy(existing.requesterId, requesterId)) return { kind: 'unavailable' };
    if (existing.fingerprint === record.fingerprint) return { kind: 'identical', record: existing };
    return { kind: 'conflict', fields: conflictingFields(existing.request, request) };
  }

  async get(deliveryId: string): Promise<DeliveryRecord | undefined> {
    const item = await this.store.load(deliveryKeyOf(deliveryId));
    return item ? (item.state as unknown as DeliveryRecord) : undefined;
  }
}
