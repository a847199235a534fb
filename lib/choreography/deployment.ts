import type { App } from 'aws-cdk-lib';
import { type ContextReader, contextOf, PlatformContextKey, readFlag, readText } from '../platform/config';
import { loadChoreographyConfig } from './config';
import type { FakeDroneFleetFactory } from './drone-fleet';
import { DRONE_DELIVERY_STACK_NAME, DroneDeliveryStack } from './stack';

/** CDK context keys this wing reads besides the platform's. */
export const DroneDeliveryContextKey = {
  /** Operator email subscribed to the alert topic (shared with the order wing). */
  AlertEmail: 'alertEmail',
} as const;

/**
 * Adds the choreography wing's stack to an app, configured from the app's CDK context: `profile`,
 * `demo` and `alertEmail`. The fake drone fleet comes from the caller (lib/fakes) and is deployed on
 * emulated profiles and with `-c demo=true`; otherwise the fleet queue is left for real drones.
 * bin/app.ts and the tests build the deployment through this one function.
 */
export function addDroneDelivery(
  app: App,
  fakeFleet: FakeDroneFleetFactory,
  context: ContextReader = contextOf(app.node),
): DroneDeliveryStack {
  const config = loadChoreographyConfig(context(PlatformContextKey.Profile));
  const runsFakes = config.emulated || readFlag(context, PlatformContextKey.Demo);
  return new DroneDeliveryStack(app, DRONE_DELIVERY_STACK_NAME, {
    config,
    ...(runsFakes && { fakeFleet }),
    alertEmail: readText(context, DroneDeliveryContextKey.AlertEmail),
    description: `Choreography reference implementation (drone delivery), profile ${config.profile}, ${runsFakes ? 'fake drone fleet' : 'fleet queue for real drones'}`,
  });
}
