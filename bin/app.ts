#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addDroneDelivery } from '../lib/choreography/deployment';
import { droneFleetFake } from '../lib/fakes/drone-fleet';
import { remoteServicesDownstream } from '../lib/fakes/remote-services';
import { addSchedulerAgentSupervisor } from '../lib/scheduler-agent-supervisor/deployment';

// Wiring only: two independent stacks, SchedulerAgentSupervisor and DroneDelivery (`cdk deploy DroneDelivery`
// deploys the choreography alone). `cdk synth` / `cdk deploy` with CDK context:
//   [-c profile=local] [-c demo=true | -c inventoryEndpoint=https://… -c paymentEndpoint=… -c shippingEndpoint=…]
//   [-c alertEmail=ops@example.com]
const app = new App();
addSchedulerAgentSupervisor(app, remoteServicesDownstream);
addDroneDelivery(app, droneFleetFake);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
