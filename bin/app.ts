#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addDroneDelivery } from '../lib/choreography/deployment';
import { droneFleetFake } from '../lib/fakes/drone-fleet';
import { remoteServicesDownstream } from '../lib/fakes/remote-services';
import { contextOf, readFlag } from '../lib/platform/config';
import { addSchedulerAgentSupervisor, SasContextKey } from '../lib/scheduler-agent-supervisor/deployment';
import { buildDeployedConsoleAssets } from './console-build';

// Wiring only: two independent stacks, SchedulerAgentSupervisor and DroneDelivery (`cdk deploy DroneDelivery`
// deploys the choreography alone). `cdk synth` / `cdk deploy` with CDK context:
//   [-c profile=local] [-c demo=true | -c inventoryEndpoint=https://… -c paymentEndpoint=… -c shippingEndpoint=…]
//   [-c alertEmail=ops@example.com] [-c console=true [-c consoleSignInDomainPrefix=…]]
const app = new App();
// The deployed console's page is built at synth (Vite, a few seconds, no network) only when asked for.
const consoleAssetsDir = readFlag(contextOf(app.node), SasContextKey.Console)
  ? buildDeployedConsoleAssets()
  : undefined;
addSchedulerAgentSupervisor(app, remoteServicesDownstream, undefined, {
  ...(consoleAssetsDir && { consoleAssetsDir }),
});
addDroneDelivery(app, droneFleetFake);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
