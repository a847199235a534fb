import type { App } from 'aws-cdk-lib';
import { stepsOfVersions } from '../../lambdas/scheduler-agent-supervisor/contracts';
import { type ContextReader, contextOf, PlatformContextKey, readText } from '../platform/config';
import { admissionWithOverrides, loadConfig, workflowWithOverrides } from './config';
import { type FakeDownstreamFactory, resolveDownstream } from './downstream';
import { SchedulerAgentSupervisorStack, STACK_NAME } from './stack';

/** CDK context keys this wing reads besides the platform's and the downstream endpoints. */
export const SasContextKey = {
  /** Operator email subscribed to the alert topic. */
  AlertEmail: 'alertEmail',
  /** Admission limit and shard count overriding the profile's (a test's small limit). */
  AdmissionLimit: 'admissionLimit',
  AdmissionShards: 'admissionShards',
  /** The workflow version new orders get (a rollout): keeps 1..n live. */
  WorkflowVersion: 'workflowVersion',
  /** Stop deploying workflow versions below this one (once no order is left on them). */
  RetireWorkflowVersionsBefore: 'retireWorkflowVersionsBefore',
} as const;

/**
 * Adds this wing's stack to an app, configured from the app's CDK context: `profile`, `demo`,
 * the downstream endpoints (./downstream.ts), `alertEmail`, and `admissionLimit` /
 * `admissionShards` (override the profile's admission settings). The fake downstream services come
 * from the caller (lib/fakes), so the wing itself never imports them. bin/app.ts and the tests build the
 * deployment through this one function, so what is tested is what `cdk deploy` runs.
 */
export function addSchedulerAgentSupervisor(
  app: App,
  fakeDownstream: FakeDownstreamFactory,
  context: ContextReader = contextOf(app.node),
): SchedulerAgentSupervisorStack {
  const profile = loadConfig(context(PlatformContextKey.Profile));
  const config = {
    ...profile,
    admission: admissionWithOverrides(profile.admission, {
      limit: readText(context, SasContextKey.AdmissionLimit),
      shards: readText(context, SasContextKey.AdmissionShards),
    }),
    workflow: workflowWithOverrides(profile.workflow, {
      version: readText(context, SasContextKey.WorkflowVersion),
      retireBefore: readText(context, SasContextKey.RetireWorkflowVersionsBefore),
    }),
  };
  // Endpoints are needed for the services of the live versions' steps only.
  const services = [...new Set(stepsOfVersions(config.workflow.live).map((step) => step.service))];
  const downstream = resolveDownstream(config, context, services);
  const alertEmail = readText(context, SasContextKey.AlertEmail);
  const kind = downstream.kind === 'fakes' ? 'fake downstream services' : 'real downstream services';
  return new SchedulerAgentSupervisorStack(app, STACK_NAME, {
    config,
    downstream,
    fakeDownstream,
    alertEmail,
    description: `Scheduler Agent Supervisor reference implementation (order processing), profile ${config.profile}, ${kind}`,
  });
}
