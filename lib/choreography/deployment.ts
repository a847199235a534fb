import type { App } from 'aws-cdk-lib';
import { type ContextReader, contextOf, PlatformContextKey, readFlag, readText } from '../platform/config';
import { type ChoreographyConfig, loadChoreographyConfig, validateChoreographySettings } from './config';
import type { FakeDroneFleetFactory } from './drone-fleet';
import { DRONE_DELIVERY_STACK_NAME, DroneDeliveryStack } from './stack';

/** CDK context keys this wing reads besides the platform's. */
export const DroneDeliveryContextKey = {
  /** Operator email subscribed to the alert topic (shared with the order wing). */
  AlertEmail: 'alertEmail',
  /**
   * A fleet of this many drones (`drone-0001`, ...) instead of the profile's. Each drone flies one
   * delivery per assignment window, so the profile's fleet caps deliveries per second (locally 3
   * drones every 30 s): `npm run bench` measures the choreography's throughput with a larger one.
   */
  DroneFleetSize: 'droneFleetSize',
  /**
   * The deployed operator console's origin (its ConsoleUrl output without the path): the operator
   * routes allow that browser origin, and bin/app.ts hands these routes to the console.
   */
  ConsoleOrigin: 'consoleOrigin',
} as const;

/** An https origin: scheme and host, no path (what a browser sends as Origin). */
const HTTPS_ORIGIN = /^https:\/\/[a-z0-9.-]+(?::[0-9]+)?$/;

/** The console origin of the context, checked; throws naming a URL that is not an https origin. */
export function consoleOriginOf(origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined;
  const trimmed = origin.replace(/\/+$/, '');
  if (!HTTPS_ORIGIN.test(trimmed)) {
    throw new Error(
      `CDK context "${DroneDeliveryContextKey.ConsoleOrigin}" must be an https origin such as https://d1234.cloudfront.net (no path), got "${origin}"`,
    );
  }
  return trimmed;
}

/** The drone ids of a fleet of `size`, or the profile's when no size is given; throws naming a bad size. */
export function withDroneFleetSize(config: ChoreographyConfig, size: string | undefined): ChoreographyConfig {
  if (size === undefined) return config;
  const count = Number(size);
  if (!/^[0-9]+$/.test(size) || count < 1) {
    throw new Error(
      `CDK context "${DroneDeliveryContextKey.DroneFleetSize}" must be a whole number of drones, got "${size}"`,
    );
  }
  const drones = Array.from({ length: count }, (_, index) => `drone-${String(index + 1).padStart(4, '0')}`);
  const resized = { ...config, droneScheduler: { ...config.droneScheduler, drones } };
  validateChoreographySettings(config.profile, resized);
  return resized;
}

/**
 * Adds the choreography wing's stack to an app, configured from the app's CDK context: `profile`,
 * `demo`, `alertEmail`, `droneFleetSize` and `consoleOrigin`. The fake drone fleet comes from the caller (lib/fakes) and is deployed on
 * emulated profiles and with `-c demo=true`; otherwise the fleet queue is left for real drones.
 * bin/app.ts and the tests build the deployment through this one function.
 */
export function addDroneDelivery(
  app: App,
  fakeFleet: FakeDroneFleetFactory,
  context: ContextReader = contextOf(app.node),
): DroneDeliveryStack {
  const config = withDroneFleetSize(
    loadChoreographyConfig(context(PlatformContextKey.Profile)),
    readText(context, DroneDeliveryContextKey.DroneFleetSize),
  );
  const runsFakes = config.emulated || readFlag(context, PlatformContextKey.Demo);
  const operatorConsoleOrigin = consoleOriginOf(readText(context, DroneDeliveryContextKey.ConsoleOrigin));
  return new DroneDeliveryStack(app, DRONE_DELIVERY_STACK_NAME, {
    config,
    ...(runsFakes && { fakeFleet }),
    alertEmail: readText(context, DroneDeliveryContextKey.AlertEmail),
    ...(operatorConsoleOrigin && { operatorConsoleOrigin }),
    description: `Choreography reference implementation (drone delivery), profile ${config.profile}, ${runsFakes ? 'fake drone fleet' : 'fleet queue for real drones'}`,
  });
}
