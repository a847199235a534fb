/**
 * The Package service's rules (DESIGN.md "Services"): a delivery's packages either fit one drone
 * (PackageReady) or weigh more than maxPayloadGrams (PackageRejected + a PACKAGE_TOO_HEAVY dead
 * letter, which remediation turns into a compensation). A RETRY or PIVOT for this service reprocesses
 * the dead-lettered request it carries. Pure: the kit reads the item and commits the reaction.
 */
import {
  type DeliveryEvent,
  type DeliveryPackage,
  EventType,
  OutboxDestination,
  type PackageSettings,
  parseEvent,
  ReasonCode,
  RemediationDecision,
  ServiceName,
} from '../contracts';
import { emission } from './envelope';
import { change, ignore, type Reaction, type ServiceItem } from './reaction';

export const PackageOutcome = { Ready: 'READY', Rejected: 'REJECTED' } as const;
export type PackageOutcome = (typeof PackageOutcome)[keyof typeof PackageOutcome];

export const packagesKeyOf = (deliveryId: string) => `PACKAGES#${deliveryId}`;

export type PackageServiceEvent = DeliveryEvent<
  typeof EventType.DeliveryRequested | typeof EventType.RemediationDecided
>;

export function reactToPackageEvent(
  current: ServiceItem | undefined,
  event: PackageServiceEvent,
  now: Date,
  settings: Pick<PackageSettings, 'maxPayloadGrams'>,
): Reaction {
  if (event.type === EventType.DeliveryRequested) {
    // The request was already assessed (a second copy under another event id changes nothing).
    if (current?.state.outcome !== undefined)
      return ignore('the packages of this delivery were already assessed');
    return assess(event, now, settings);
  }
  const { decision, source, retryOf } = event.data;
  if (source !== ServiceName.Package) return ignore(`a ${decision} for ${source} is not this service's work`);
  if (decision !== RemediationDecision.Retry && decision !== RemediationDecision.Pivot) {
    return ignore(`${decision} needs nothing of the Package service`);
  }
  const original = parseEvent(JSON.stringify(retryOf ?? {}), [EventType.DeliveryRequested]);
  if (!original.ok)
    return ignore(`the ${decision} carries no DeliveryRequested to reprocess: ${original.detail}`);
  return assess({ ...original.event, correlationId: event.correlationId }, now, settings);
}

function assess(
  request: DeliveryEvent<typeof EventType.DeliveryRequested>,
  now: Date,
  settings: Pick<PackageSettings, 'maxPayloadGrams'>,
): Reaction {
  const packages: DeliveryPackage[] = request.data.packages;
  const totalWeightGrams = packages.reduce((sum, item) => sum + item.weightGrams, 0);
  const base = {
    deliveryId: request.deliveryId,
    correlationId: request.correlationId,
    packages,
    totalWeightGrams,
    updatedAt: now.toISOString(),
  };
  if (totalWeightGrams > settings.maxPayloadGrams) {
    const detail = `the packages weigh ${totalWeightGrams} g; a drone carries at most ${settings.maxPayloadGrams} g`;
    return change(
      { ...base, outcome: PackageOutcome.Rejected, reasonCode: ReasonCode.PackageTooHeavy },
      [
        emission(OutboxDestination.DeliveryQueue, EventType.PackageRejected, {
          reasonCode: ReasonCode.PackageTooHeavy,
          detail,
        }),
      ],
      { deadLetter: { reasonCode: ReasonCode.PackageTooHeavy, detail } },
    );
  }
  return change({ ...base, outcome: PackageOutcome.Ready }, [
    emission(OutboxDestination.DeliveryQueue, EventType.PackageReady, { packages, totalWeightGrams }),
  ]);
}
