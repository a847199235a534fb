/**
 * The Package service's handler module, composed as deployed (settings from SERVICE_SETTINGS, clients
 * from the standard endpoint variables), against DynamoDB Local and the runtime's SQS service.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  EventType,
  MessageAttribute,
  ReasonCode,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { envelope, lambdaContext, provisionService, sqsRecord, useChoreographyWorld } from './harness';

describe('package service handler', () => {
  const world = useChoreographyWorld();
  let tableName: string;
  let dlqUrl: string;
  let handler: (event: SQSEvent, context: typeof lambdaContext) => Promise<SQSBatchResponse>;
  beforeAll(async () => {
    ({ tableName, dlqUrl } = await provisionService(world, 'package', {
      maxReceiveAttempts: 3,
      processedMessageTtlSeconds: 3600,
      maxPayloadGrams: 5000,
    }));
    ({ handler } = await import('../../../lambdas/choreography/handlers/package-service'));
  });

  const request = (deliveryId: string, weightGrams: number) =>
    JSON.stringify(
      envelope(
        EventType.DeliveryRequested,
        {
          ownerId: 'o',
          pickup: { lat: 0, lon: 0 },
          dropoff: { lat: 0, lon: 0 },
          packages: [{ packageId: 'p1', weightGrams, size: 'MEDIUM' }],
        },
        { deliveryId, producer: ServiceName.Ingestion },
      ),
    );

  it('records a ready delivery with PackageReady in its change log', async () => {
    const result = await handler({ Records: [sqsRecord(request('pkg-ok', 1200))] }, lambdaContext);
    expect(result.batchItemFailures).toEqual([]);
    const item = await world.getItem(tableName, 'PACKAGES#pkg-ok');
    expect(item).toMatchObject({ outcome: 'READY', totalWeightGrams: 1200, sequence: 1 });
    expect(item?.outbox).toEqual([
      expect.objectContaining({ message: expect.objectContaining({ type: EventType.PackageReady }) }),
    ]);
  });

  it('rejects a too heavy delivery, dead-letters it, and reprocesses it on RETRY', async () => {
    const original = request('pkg-heavy', 9000);
    await handler({ Records: [sqsRecord(original)] }, lambdaContext);
    expect(await world.getItem(tableName, 'PACKAGES#pkg-heavy')).toMatchObject({ outcome: 'REJECTED' });
    const [letter] = await world.drain(dlqUrl);
    expect(letter?.Body).toBe(original);
    expect(letter?.MessageAttributes?.[MessageAttribute.ReasonCode]?.StringValue).toBe(
      ReasonCode.PackageTooHeavy,
    );
    expect(letter?.MessageAttributes?.[MessageAttribute.DeadLetteredBy]?.StringValue).toBe(
      ServiceName.Package,
    );

    const lighter = {
      ...JSON.parse(original),
      data: {
        ...JSON.parse(original).data,
        packages: [{ packageId: 'p1', weightGrams: 900, size: 'SMALL' }],
      },
    };
    const retry = envelope(
      EventType.RemediationDecided,
      {
        decision: 'RETRY',
        reasonCode: ReasonCode.PackageTooHeavy,
        source: ServiceName.Package,
        occurrence: 1,
        deadLetteredEventId: 'ingestion:pkg-heavy:1',
        detail: 'retry',
        retryOf: lighter,
      },
      { deliveryId: 'pkg-heavy', producer: ServiceName.Remediation },
    );
    await handler({ Records: [sqsRecord(JSON.stringify(retry))] }, lambdaContext);
    const item = await world.getItem(tableName, 'PACKAGES#pkg-heavy');
    expect(item).toMatchObject({ outcome: 'READY', sequence: 2, version: 2 });
  });
});
