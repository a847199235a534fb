#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { loadConfig } from '../lib/scheduler-agent-supervisor/config';
import { SchedulerAgentSupervisorStack, STACK_NAME } from '../lib/scheduler-agent-supervisor/stack';

// Wiring only: `cdk synth` / `cdk deploy` [-c profile=local] [-c alertEmail=ops@example.com]
const app = new App();
const config = loadConfig(app.node.tryGetContext('profile'));
const alertEmail: unknown = app.node.tryGetContext('alertEmail');
new SchedulerAgentSupervisorStack(app, STACK_NAME, {
  config,
  alertEmail: typeof alertEmail === 'string' && alertEmail !== '' ? alertEmail : undefined,
  description: `Scheduler Agent Supervisor reference implementation (order processing), profile ${config.profile}`,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
