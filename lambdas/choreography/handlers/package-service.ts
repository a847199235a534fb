/** Package service (package queue, FIFO): composition only; the rules are domain/package-service.ts. */
import { consumerHandler } from '../adapters/consumer-root';
import { PackageSettingsSchema, ServiceName } from '../contracts';
import { type PackageServiceEvent, packagesKeyOf, reactToPackageEvent } from '../domain/package-service';

export const handler = consumerHandler(PackageSettingsSchema, ({ settings }) => ({
  service: ServiceName.Package,
  itemKeyOf: (event) => packagesKeyOf(event.deliveryId),
  react: (current, event, now) => reactToPackageEvent(current, event as PackageServiceEvent, now, settings),
}));
