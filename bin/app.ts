#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { contextOf, readFlag } from '../lib/platform/config';
import { SasContextKey } from '../lib/scheduler-agent-supervisor/sas-context-key';
import { composeApp } from './compose';
import { buildDeployedConsoleAssets } from './console-build';

// Wiring only (bin/compose.ts): two stacks, SchedulerAgentSupervisor and DroneDelivery (`cdk deploy DroneDelivery`
// deploys the choreography alone). `cdk synth` / `cdk deploy` with CDK context:
//   [-c profile=local] [-c demo=true | -c inventoryEndpoint=https://… -c paymentEndpoint=… -c shippingEndpoint=…]
//   [-c alertEmail=ops@example.com] [-c console=true [-c consoleSignInDomainPrefix=…] [-c consoleOrigin=https://….cloudfront.net]]
// (consoleOrigin, the console's ConsoleUrl origin once deployed, adds its Deliveries tab: bin/compose.ts)
const app = new App();
// The deployed console's page is built at synth (Vite, a few seconds, no network) only when asked for.
const consoleAssetsDir = readFlag(contextOf(app.node), SasContextKey.Console)
  ? buildDeployedConsoleAssets()
  : undefined;
composeApp(app, consoleAssetsDir);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
