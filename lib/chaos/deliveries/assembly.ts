/**
 * What the delivery campaign reads from the synthesized assembly: the choreography's stack, each
 * service's settings as its handler parses them (SERVICE_SETTINGS, one schema on both sides), the
 * consumers' function and visibility timeouts and the relays' retry budget, so the plan and the
 * terminal bound move with the configuration instead of hard-coding numbers.
 */
import {
  ChoreographyEnvKey,
  DeliverySettingsSchema,
  DroneSchedulerSettingsSchema,
  FlightSettingsSchema,
  PackageSettingsSchema,
  type RemediationSettings,
  RemediationSettingsSchema,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import { type AssemblyFunction, assemblyFunctions, assemblyTemplates } from '../../harness/assembly';
import type { ServiceLimits } from './plan';

export interface DeliveryAssemblyFacts {
  readonly assemblyDir: string;
  /** The stack holding the choreography (its REST API is the delivery API). */
  readonly stackName: string;
  readonly limits: ServiceLimits;
  readonly remediation: RemediationSettings;
  /** The longest visibility timeout of the consumers' work queues. */
  readonly visibilityTimeoutSeconds: number;
  /** The longest timeout of the consumer functions. */
  readonly functionTimeoutSeconds: number;
  readonly flight: { readonly pickupMillis: number; readonly flightMillis: number };
  /** How long a drone stays booked for a delivery (its window), whatever the flight takes. */
  readonly assignmentMillis: number;
  /** Worst case for a relay to get an event out: (stream retries + 1) x the relay's timeout. */
  readonly relayRetryMillis: number;
  /** Consumer functions by service (for the broken variants and the logs). */
  readonly consumers: ReadonlyMap<string, AssemblyFunction>;
}

const CONSUMERS = [ServiceName.Package, ServiceName.DroneScheduler, ServiceName.Delivery] as const;

export function readDeliveryAssemblyFacts(assemblyDir: string): DeliveryAssemblyFacts {
  const functions = assemblyFunctions(assemblyDir);
  const serviceOf = (fn: AssemblyFunction) => fn.environment[PowertoolsEnvKey.ServiceName];
  const one = (service: string): AssemblyFunction => {
    const found = functions.filter(
      (fn) => serviceOf(fn) === service && ChoreographyEnvKey.DeadLetterQueueUrl in fn.environment,
    );
    const consumer = found[0];
    if (found.length !== 1 || !consumer) {
      throw new Error(`Expected one ${service} consumer in ${assemblyDir}, found ${found.length}`);
    }
    return consumer;
  };
  const settingsOf = (fn: AssemblyFunction) =>
    JSON.parse(fn.environment[ChoreographyEnvKey.Settings] ?? '{}');
  const consumers = new Map(CONSUMERS.map((service) => [service as string, one(service)]));
  const packages = PackageSettingsSchema.parse(settingsOf(one(ServiceName.Package)));
  const drones = DroneSchedulerSettingsSchema.parse(settingsOf(one(ServiceName.DroneScheduler)));
  const delivery = DeliverySettingsSchema.parse(settingsOf(one(ServiceName.Delivery)));
  const remediationFn = functions.find((fn) => serviceOf(fn) === ServiceName.Remediation);
  const fleetFn = functions.find((fn) => serviceOf(fn) === ServiceName.DroneFleet);
  if (!remediationFn || !fleetFn) throw new Error(`No remediation or drone fleet function in ${assemblyDir}`);
  const remediation = RemediationSettingsSchema.parse(settingsOf(remediationFn));
  const flight = FlightSettingsSchema.parse(settingsOf(fleetFn));
  const stackName = (consumers.get(ServiceName.Delivery) as AssemblyFunction).stackName;

  const resources =
    assemblyTemplates(assemblyDir).find((stack) => stack.stackName === stackName)?.resources ?? {};
  const consumerIds = new Set([...consumers.values()].map((fn) => fn.logicalId));
  const visibility: number[] = [];
  const relays: number[] = [];
  const timeoutOf = new Map(functions.map((fn) => [fn.logicalId, fn.timeoutSeconds]));
  const queueLogicalIdOf = (arn: unknown) =>
    (arn as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::Lambda::EventSourceMapping') continue;
    const properties = resource.Properties ?? {};
    const target = (properties.FunctionName as { Ref?: string } | undefined)?.Ref ?? '';
    if (consumerIds.has(target)) {
      const queue = resources[queueLogicalIdOf(properties.EventSourceArn) ?? ''];
      visibility.push(Number(queue?.Properties?.VisibilityTimeout ?? 30));
    } else if (properties.StartingPosition !== undefined) {
      const retries = Number(properties.MaximumRetryAttempts ?? 0);
      relays.push((Math.max(0, retries) + 1) * (timeoutOf.get(target) ?? 3) * 1000);
    }
  }
  if (visibility.length !== CONSUMERS.length || relays.length === 0) {
    throw new Error(
      `${assemblyDir}: expected the ${CONSUMERS.length} consumers' queue mappings and the relays' stream mappings, ` +
        `found ${visibility.length} and ${relays.length}`,
    );
  }
  return {
    assemblyDir,
    stackName,
    limits: {
      maxPayloadGrams: packages.maxPayloadGrams,
      maxRangeKm: drones.maxRangeKm,
      failingDeliveryPrefix: flight.failingDeliveryPrefix,
      maxReceiveAttempts: Math.max(
        packages.maxReceiveAttempts,
        drones.maxReceiveAttempts,
        delivery.maxReceiveAttempts,
      ),
      drones: drones.drones.length,
    },
    remediation,
    visibilityTimeoutSeconds: Math.max(...visibility),
    functionTimeoutSeconds: Math.max(...[...consumers.values()].map((fn) => fn.timeoutSeconds)),
    flight: { pickupMillis: flight.pickupMillis, flightMillis: flight.flightMillis },
    assignmentMillis: drones.assignmentSeconds * 1000,
    relayRetryMillis: Math.max(...relays),
    consumers,
  };
}
