#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { remoteServicesDownstream } from '../lib/fakes/remote-services';
import { addSchedulerAgentSupervisor } from '../lib/scheduler-agent-supervisor/deployment';

// Wiring only. `cdk synth` / `cdk deploy` with CDK context:
//   [-c profile=local] [-c demo=true | -c inventoryEndpoint=https://… -c paymentEndpoint=… -c shippingEndpoint=…]
//   [-c alertEmail=ops@example.com]
const app = new App();
addSchedulerAgentSupervisor(app, remoteServicesDownstream);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
