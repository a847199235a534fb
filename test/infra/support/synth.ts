import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DISABLE_ASSET_STAGING_CONTEXT } from 'aws-cdk-lib/cx-api';
import { remoteServicesDownstream } from '../../../lib/fakes/remote-services';
import { DataSettings, type DataSettingsProps } from '../../../lib/platform/data-settings';
import { type AslDefinition, parseDefinition } from '../../../lib/platform/guardrails';
import { type DeploymentConfig, loadConfig } from '../../../lib/scheduler-agent-supervisor/config';
import { addSchedulerAgentSupervisor } from '../../../lib/scheduler-agent-supervisor/deployment';
import type { SchedulerAgentSupervisorStack } from '../../../lib/scheduler-agent-supervisor/stack';
import { testOutdir } from '../../support/cdk-outdir';

export interface SynthesizedStack {
  readonly app: App;
  readonly stack: SchedulerAgentSupervisorStack;
  readonly template: Template;
  readonly config: DeploymentConfig;
}

/**
 * A test app with the given CDK context: asset bundling skipped (no esbuild run), assets not copied
 * into the assembly (the console deployment's AWS CLI layer alone is 22 MB; templates name assets by
 * the same hashes either way), the assembly in a directory the tests clean (testOutdir), and the
 * built-in CloudFormation schema validation off (slow; `cdk synth` in `npm test` still runs it).
 * Guardrails still run.
 */
export function testApp(context: Readonly<Record<string, unknown>> = {}): App {
  return new App({
    outdir: testOutdir(),
    context: { ...context, 'aws:cdk:bundling-stacks': [], [DISABLE_ASSET_STAGING_CONTEXT]: true },
    builtinCloudFormationValidation: false,
  });
}

/** The local profile's data settings: nothing kept, logs 7 days. */
export const PROBE_DATA_SETTINGS: DataSettingsProps = { retainData: false, logRetentionDays: 7 };

/** A stack for constructs tested alone, with the data settings a wing's stack gives its own. */
export function probeStack(
  app: App = testApp(),
  id = 'Probe',
  settings: DataSettingsProps = PROBE_DATA_SETTINGS,
): Stack {
  const stack = new Stack(app, id);
  DataSettings.forStack(stack, settings);
  return stack;
}

/** Context of a default-profile deployment that runs the fake services (the demo choice). */
export const DEMO_CONTEXT = { demo: 'true' } as const;

/** Context of a deployment pointing the agents at real services (no IAM auth). */
export const ENDPOINTS_CONTEXT = {
  inventoryEndpoint: 'https://inventory.example.com',
  paymentEndpoint: 'https://payments.example.com/v2',
  shippingEndpoint: 'https://shipping.example.com',
} as const;

/** Endpoints where inventory is a Lambda function URL with IAM auth (the agent may invoke that function). */
export const IAM_ENDPOINTS_CONTEXT = {
  ...ENDPOINTS_CONTEXT,
  inventoryEndpoint: 'https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-1.on.aws',
  inventoryAuth: 'iam',
  inventoryFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:inventory-service',
} as const;

export interface SynthOptions {
  /** CDK context `alertEmail`. @default - none */
  readonly alertEmail?: string;
  /** Further CDK context (demo, endpoints). @default - none */
  readonly context?: Readonly<Record<string, string>>;
}

/** The stack as bin/app.ts builds it from CDK context (profile, demo, endpoints, alertEmail). */
export function synthesizeStack(profile = 'local', options: SynthOptions = {}): SynthesizedStack {
  const app = testApp({
    profile,
    ...options.context,
    ...(options.alertEmail !== undefined && { alertEmail: options.alertEmail }),
  });
  const stack = addSchedulerAgentSupervisor(app, remoteServicesDownstream);
  return { app, stack, template: Template.fromStack(stack), config: loadConfig(profile) };
}

type Resources = Record<
  string,
  { Type: string; Properties?: Record<string, unknown> } & Record<string, unknown>
>;

export function resourcesOf(template: Template): Resources {
  return template.toJSON().Resources as Resources;
}

/** The scheduler's definition, intrinsics rendered as `{{Ref:...}}` placeholders. */
export function stateMachineDefinition(template: Template, version?: number): AslDefinition {
  const machines = Object.entries(template.findResources('AWS::StepFunctions::StateMachine'))
    .filter(([id]) => version === undefined || id.startsWith(`OrderWorkflowV${version}StateMachine`))
    .map(([, machine]) => machine);
  if (machines.length !== 1) {
    throw new Error(
      `Expected one state machine${version === undefined ? '' : ` of workflow version ${version}`}, found ${machines.length}`,
    );
  }
  return parseDefinition(machines[0]?.Properties.DefinitionString);
}

/** The environment variables of the function whose POWERTOOLS_SERVICE_NAME is `service`. */
export function environmentOf(template: Template, service: string): Record<string, unknown> {
  const fn = resourcesOf(template)[functionIdByService(template, service)];
  const environment = fn?.Properties?.Environment as { Variables: Record<string, unknown> } | undefined;
  if (!environment) throw new Error(`Function of ${service} has no environment`);
  return environment.Variables;
}

/** Logical id of the Lambda function whose POWERTOOLS_SERVICE_NAME is `service`. */
export function functionIdByService(template: Template, service: string): string {
  const matches = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
    ([, fn]) => fn.Properties?.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === service,
  );
  if (matches.length !== 1)
    throw new Error(`Expected one function for service '${service}', found ${matches.length}`);
  return (matches[0] as [string, unknown])[0];
}

export interface PolicyStatement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

/** Every IAM statement attached (inline policies) to the execution role of a function. */
export function statementsOfFunction(template: Template, functionId: string): PolicyStatement[] {
  const fn = template.toJSON().Resources[functionId];
  const roleArn = fn?.Properties?.Role as { 'Fn::GetAtt': [string, string] };
  const roleId = roleArn['Fn::GetAtt'][0];
  return statementsOfRole(template, roleId);
}

export function statementsOfRole(template: Template, roleId: string): PolicyStatement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) =>
      (policy.Properties.Roles as unknown[]).some(
        (role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId }),
      ),
    )
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatement[]);
}

export function actionsOf(statement: PolicyStatement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

/** Statements granting `action` (exact name). */
export function statementsWithAction(statements: PolicyStatement[], action: string): PolicyStatement[] {
  return statements.filter((statement) => actionsOf(statement).includes(action));
}
