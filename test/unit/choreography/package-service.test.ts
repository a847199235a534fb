/** The Package service's rules. */
import { EventType, ReasonCode, ServiceName } from '../../../lambdas/choreography/contracts';
import {
  type PackageServiceEvent,
  reactToPackageEvent,
} from '../../../lambdas/choreography/domain/package-service';

const NOW = new Date('2030-01-01T00:00:00Z');
const SETTINGS = { maxPayloadGrams: 5000 };
const requested = (weights: number[]) =>
  ({
    type: EventType.DeliveryRequested,
    schemaVersion: 1,
    eventId: 'ingestion:d1:1',
    deliveryId: 'd1',
    correlationId: 'c1',
    sequence: 1,
    producer: ServiceName.Ingestion,
    occurredAt: NOW.toISOString(),
    data: {
      ownerId: 'o',
      pickup: { lat: 0, lon: 0 },
      dropoff: { lat: 0, lon: 0 },
      packages: weights.map((weightGrams, n) => ({ packageId: `p${n}`, weightGrams, size: 'SMALL' })),
    },
  }) as PackageServiceEvent;
const decided = (decision: string, source: string, retryOf?: unknown) =>
  ({
    ...requested([1]),
    type: EventType.RemediationDecided,
    eventId: 'remediation:d1:1',
    producer: ServiceName.Remediation,
    correlationId: 'c1',
    data: {
      decision,
      source,
      reasonCode: ReasonCode.PackageTooHeavy,
      occurrence: 1,
      deadLetteredEventId: 'x',
      detail: 'd',
      retryOf,
    },
  }) as unknown as PackageServiceEvent;

describe('package service', () => {
  it('makes a delivery within the payload ready, with its total weight', () => {
    const reaction = reactToPackageEvent(undefined, requested([2000, 3000]), NOW, SETTINGS);
    expect(reaction).toMatchObject({
      kind: 'change',
      state: { outcome: 'READY', totalWeightGrams: 5000 },
      emissions: [{ type: EventType.PackageReady, data: { totalWeightGrams: 5000 } }],
    });
    expect(reaction.kind === 'change' && reaction.deadLetter).toBeFalsy();
  });

  it('rejects and dead-letters PACKAGE_TOO_HEAVY over the payload', () => {
    expect(reactToPackageEvent(undefined, requested([2000, 3001]), NOW, SETTINGS)).toMatchObject({
      kind: 'change',
      state: { outcome: 'REJECTED', reasonCode: ReasonCode.PackageTooHeavy },
      emissions: [{ type: EventType.PackageRejected, data: { reasonCode: ReasonCode.PackageTooHeavy } }],
      deadLetter: { reasonCode: ReasonCode.PackageTooHeavy },
    });
  });

  it('changes nothing when the delivery was already assessed', () => {
    const current = { key: 'PACKAGES#d1', version: 1, sequence: 1, outbox: [], state: { outcome: 'READY' } };
    expect(reactToPackageEvent(current, requested([1]), NOW, SETTINGS).kind).toBe('ignore');
  });

  it('reprocesses the request a RETRY for the package service carries', () => {
    const current = {
      key: 'PACKAGES#d1',
      version: 1,
      sequence: 1,
      outbox: [],
      state: { outcome: 'REJECTED' },
    };
    const reaction = reactToPackageEvent(
      current,
      decided('RETRY', 'package', requested([100])),
      NOW,
      SETTINGS,
    );
    expect(reaction).toMatchObject({ kind: 'change', state: { outcome: 'READY', totalWeightGrams: 100 } });
  });

  it('ignores decisions for other services, compensations, and retries carrying nothing to reprocess', () => {
    expect(
      reactToPackageEvent(undefined, decided('RETRY', 'drone-scheduler', requested([1])), NOW, SETTINGS).kind,
    ).toBe('ignore');
    expect(reactToPackageEvent(undefined, decided('COMPENSATE', 'package'), NOW, SETTINGS).kind).toBe(
      'ignore',
    );
    expect(reactToPackageEvent(undefined, decided('RETRY', 'package', { nope: 1 }), NOW, SETTINGS).kind).toBe(
      'ignore',
    );
  });
});
