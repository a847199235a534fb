/**
 * The composition root's wiring, as a function bin/app.ts calls and the tests synthesize: two
 * independent stacks, DroneDelivery and SchedulerAgentSupervisor, and what crosses between them,
 * the deployed console's Deliveries tab. Only here may both wings meet (each imports only the
 * platform, shared code and itself).
 *
 * The console shows the delivery stack's alarms whenever it is deployed: their name prefix is the
 * stack's name, a plain string, so it crosses without an import or a dependency.
 *
 * The console (in SchedulerAgentSupervisor) reads the delivery API's URL and method ARNs, so that
 * stack depends on DroneDelivery; the delivery API cannot read the console's origin back (a
 * dependency cycle CloudFormation refuses), so it is told with `-c consoleOrigin=<ConsoleUrl>`
 * once the console exists, and the console gets the Deliveries tab only when that origin is set.
 * DroneDelivery is thus the assembly's first stack; the local runtime's API ports do not follow
 * that order but the app's own (app-api-port-order.ts: orders on the base port).
 */
import type { App } from 'aws-cdk-lib';
import { alarmNamePrefix } from '../lambdas/shared/alarm-spec';
import { addDroneDelivery } from '../lib/choreography/deployment';
import type { DroneDeliveryStack } from '../lib/choreography/stack';
import { droneFleetFake } from '../lib/fakes/drone-fleet';
import { remoteServicesDownstream } from '../lib/fakes/remote-services';
import { exportOperatorRoutes } from '../lib/platform/operator-routes';
import { addSchedulerAgentSupervisor } from '../lib/scheduler-agent-supervisor/deployment';
import type { SchedulerAgentSupervisorStack } from '../lib/scheduler-agent-supervisor/stack';

/** How the console labels the delivery stack's alarms (its Deliveries tab's name). */
export const DELIVERY_ALARMS_WING = 'Deliveries';

/** The prefix of the delivery API's exports the console imports (`DroneDelivery-Operator-ApiUrl`, ...). */
export const DELIVERY_OPERATOR_EXPORT = 'DroneDelivery-Operator';

export interface ComposedApp {
  readonly orders: SchedulerAgentSupervisorStack;
  readonly deliveries: DroneDeliveryStack;
}

/** Both stacks on `app`, configured from its CDK context; `consoleAssetsDir` is the built console page. */
export function composeApp(app: App, consoleAssetsDir?: string): ComposedApp {
  const deliveries = addDroneDelivery(app, droneFleetFake);
  const routes = deliveries.api.operator;
  const forConsole = consoleAssetsDir !== undefined && routes.browserOrigin !== undefined;
  const orders = addSchedulerAgentSupervisor(app, remoteServicesDownstream, undefined, {
    ...(consoleAssetsDir && {
      consoleAssetsDir,
      consoleOtherAlarms: [{ wing: DELIVERY_ALARMS_WING, namePrefix: alarmNamePrefix(deliveries.stackName) }],
    }),
    ...(forConsole && {
      consoleDeliveryApi: exportOperatorRoutes(deliveries, routes.routes, DELIVERY_OPERATOR_EXPORT),
    }),
  });
  if (forConsole && orders.operatorConsole)
    orders.addStackDependency(deliveries, 'The console reads the delivery API');
  return { orders, deliveries };
}
