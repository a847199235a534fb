/**
 * What the delivery campaign makes of a delivery accepted past the door (the ingestion adapter's
 * outcome, written without HTTP): the answer the API would have given, so the campaign tracks only
 * deliveries that were stored. Exhaustive: a new outcome of the adapter fails the type-check here
 * instead of being taken for accepted.
 */
import { deliveryIdUnavailable } from '../../lambdas/choreography/contracts';
import type { DeliveryRecordsOutcome } from '../../lambdas/choreography/kit';
import type { SubmitOutcome } from './orders-driver';

export function pastTheDoorOutcome(outcome: DeliveryRecordsOutcome, deliveryId: string): SubmitOutcome {
  switch (outcome.kind) {
    case 'accepted':
      return { kind: 'accepted', status: 202 };
    case 'identical':
      return { kind: 'accepted', status: 200 };
    case 'conflict':
      return { kind: 'refused', status: 409, body: `differs in ${outcome.fields.join(', ')}` };
    case 'unavailable':
      return { kind: 'refused', status: 409, body: JSON.stringify(deliveryIdUnavailable(deliveryId)) };
    default:
      return outcome satisfies never;
  }
}
