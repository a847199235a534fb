/**
 * A delivery accepted past the door, without HTTP: submit-delivery's own adapter writes its item and
 * DeliveryRequested to the ingestion table (the relay publishes it as any other), without the
 * door's limits. It stands for a delivery accepted before the fleet's range or payload shrank (the
 * API now answers 400), so the services' own refusals still have work. One kit for the delivery
 * campaign's driver and the acceptance suite's client; the requester defaults to the first in the
 * stack's Requesters output (the one whose key the tooling uses).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type RegisteredRequester,
  type RequesterRegistry,
  RequesterRegistrySchema,
  type SubmitDeliveryRequest,
} from '../../lambdas/choreography/contracts';
import {
  DeliveryRecords,
  type DeliveryRecordsOutcome,
  DynamoServiceStore,
} from '../../lambdas/choreography/kit';

export class PastTheDoor {
  private readonly records: DeliveryRecords;
  /** The stack's requesters, in the Requesters output's order. */
  readonly requesters: RequesterRegistry;

  /**
   * `ingestionTable`: the IngestionTableName output; `requestersJson`: the Requesters output
   * (checked with its contract schema: a stack that lists no requester fails here).
   */
  constructor(documents: DynamoDBDocumentClient, ingestionTable: string, requestersJson: string) {
    this.records = new DeliveryRecords(new DynamoServiceStore(documents, ingestionTable, 0));
    this.requesters = RequesterRegistrySchema.parse(JSON.parse(requestersJson));
  }

  /** The first requester's id: the one whose key the tooling's API calls use. */
  get firstRequesterId(): string {
    return (this.requesters[0] as RegisteredRequester).requesterId;
  }

  /** Writes the delivery as `requesterId` would have submitted it. @default requesterId - the first */
  accept(
    request: SubmitDeliveryRequest,
    requestId: string,
    now: Date,
    requesterId: string = this.firstRequesterId,
  ): Promise<DeliveryRecordsOutcome> {
    return this.records.submit(request, requestId, now, requesterId);
  }
}
