import type { App } from 'aws-cdk-lib';
import { type ConsoleAlarmSource, stepsOfVersions } from '../../lambdas/scheduler-agent-supervisor/contracts';
import { type ContextReader, contextOf, PlatformContextKey, readFlag, readText } from '../platform/config';
import type { OperatorRoutes } from '../platform/operator-routes';
import { admissionWithOverrides, loadConfig, timingsWithOverride, workflowWithOverrides } from './config';
import { type FakeDownstreamFactory, resolveDownstream } from './downstream';
import { SasContextKey } from './sas-context-key';
import { SchedulerAgentSupervisorStack, type SchedulerAgentSupervisorStackProps, STACK_NAME } from './stack';
import { apiThrottleWithOverride, clientsWithThrottleShares } from './throttle-overrides';

export interface DeploymentAssets {
  /**
   * The console's built page, for a deployment with `console=true` (bin/app.ts builds it at synth).
   * @default - none: a deployment asking for the console fails, naming what is missing
   */
  readonly consoleAssetsDir?: string;
  /**
   * The delivery API's operator routes, for the console's Deliveries tab (bin/compose.ts hands them
   * over when that API allows the console's origin).
   * @default - the deployed console has no Deliveries tab
   */
  readonly consoleDeliveryApi?: OperatorRoutes;
  /**
   * Other stacks' alarms the console shows besides this stack's (bin/compose.ts names the delivery
   * stack's whenever the console is deployed).
   * @default - the console shows this stack's alarms only
   */
  readonly consoleOtherAlarms?: readonly ConsoleAlarmSource[];
}

/**
 * Adds this wing's stack to an app, configured from the app's CDK context: `profile`, `demo`,
 * the downstream endpoints (./downstream.ts), `alertEmail`, `admissionLimit` /
 * `admissionShards` (override the profile's admission settings), `apiThrottle` / `throttleShares`
 * (its API throttle and the clients' shares of it), and `timings` (another profile's). The fake downstream services come
 * from the caller (lib/fakes), so the wing itself never imports them. bin/app.ts and the tests build the
 * deployment through this one function, so what is tested is what `cdk deploy` runs.
 */
export function addSchedulerAgentSupervisor(
  app: App,
  fakeDownstream: FakeDownstreamFactory,
  context: ContextReader = contextOf(app.node),
  assets: DeploymentAssets = {},
): SchedulerAgentSupervisorStack {
  const profile = loadConfig(context(PlatformContextKey.Profile));
  const config = {
    ...profile,
    ...timingsWithOverride(profile, readText(context, SasContextKey.Timings)),
    apiThrottle: apiThrottleWithOverride(profile.apiThrottle, readText(context, SasContextKey.ApiThrottle)),
    clients: clientsWithThrottleShares(profile.clients, readText(context, SasContextKey.ThrottleShares)),
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
  const operatorConsole = consoleOf(config.profile, context, assets);
  const kind = downstream.kind === 'fakes' ? 'fake downstream services' : 'real downstream services';
  return new SchedulerAgentSupervisorStack(app, STACK_NAME, {
    config,
    downstream,
    fakeDownstream,
    alertEmail,
    ...(operatorConsole && { console: operatorConsole }),
    description: `Scheduler Agent Supervisor reference implementation (order processing), profile ${config.profile}, ${kind}`,
  });
}

/** Whether the deployment asks for the console, and with what; refused where it cannot run. */
export function consoleOf(
  profile: string,
  context: ContextReader,
  assets: DeploymentAssets,
): SchedulerAgentSupervisorStackProps['console'] {
  if (!readFlag(context, SasContextKey.Console)) return undefined;
  if (profile === 'local') {
    throw new Error(
      `CDK context "${SasContextKey.Console}": the local profile has no deployed console (the local runtime runs no CloudFront or Cognito); npm start serves the console locally`,
    );
  }
  if (assets.consoleAssetsDir === undefined) {
    throw new Error(
      `CDK context "${SasContextKey.Console}" is true but no built console page was given (bin/app.ts builds it with the console's Vite build)`,
    );
  }
  const signInDomainPrefix = readText(context, SasContextKey.ConsoleSignInDomainPrefix);
  return {
    assetsDir: assets.consoleAssetsDir,
    ...(signInDomainPrefix && { signInDomainPrefix }),
    ...(assets.consoleDeliveryApi && { deliveryApi: assets.consoleDeliveryApi }),
    ...(assets.consoleOtherAlarms && { otherAlarms: assets.consoleOtherAlarms }),
  };
}
