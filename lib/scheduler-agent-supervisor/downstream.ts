import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import {
  DEFAULT_WORKFLOW_VERSION,
  REMOTE_AUTH_MODES,
  type RemoteAuthMode,
  type ServiceName,
  workflowSteps,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import {
  type ContextReader,
  type PlatformConfig,
  PlatformContextKey,
  readFlag,
  readText,
} from '../platform/config';

/**
 * The agents' downstream services: where each step's agent sends its remote calls. A deployment
 * either names a real endpoint per service (CDK context below), or runs the fake services of
 * lib/fakes: always on an emulated profile (local runtime, LocalStack) unless endpoints are named,
 * and on AWS only when asked (`-c demo=true`), because anyone holding an API key can drive them
 * (STALL-ONCE holds a function for minutes, PERM-FAIL raises operator alerts). A deployment with
 * neither fails at synth, naming the settings.
 */
export type Downstream =
  | { readonly kind: 'fakes' }
  | { readonly kind: 'endpoints'; readonly endpoints: Readonly<Record<ServiceName, ServiceEndpoint>> };

/**
 * The fake downstream as this wing sees it. The composition root (bin/app.ts, or a test) builds it
 * from lib/fakes and hands the wing a factory, so the wing never imports the fakes.
 */
export interface FakeDownstream {
  /** Base URL the agents call, without a trailing slash. */
  readonly endpointUrl: string;
  /** The function behind the IAM-authenticated URL: the agents are allowed to invoke it. */
  readonly urlFunction: lambda.IFunction;
  /** Ledger of the effects, named in the stack outputs for the acceptance suite and the chaos checker. */
  readonly ledgerTable: dynamodb.ITable;
}

/** What a fake downstream needs from the deployment. */
export interface FakeDownstreamSettings {
  /** How long a STALL-ONCE call is held before it fails (the wing's remoteStallMillis). */
  readonly stallMillis: number;
}

/** Builds the fake downstream inside the wing's stack, when the deployment runs the fakes. */
export type FakeDownstreamFactory = (scope: Construct, settings: FakeDownstreamSettings) => FakeDownstream;

export interface ServiceEndpoint {
  /** Base URL without a trailing slash; the agent appends the step's operation path. */
  readonly url: string;
  readonly auth: RemoteAuthMode;
  /** With `iam`: the function behind the function URL, which the agent is allowed to invoke. */
  readonly functionArn?: string;
}

/**
 * The services the agents of the default workflow version call, one set of context keys each. A
 * deployment asks for the services of its live versions' steps (deployment.ts).
 */
export const DOWNSTREAM_SERVICES: readonly ServiceName[] = [
  ...new Set(workflowSteps(DEFAULT_WORKFLOW_VERSION).map((step) => step.service)),
];

/** CDK context keys of one service's endpoint, e.g. `paymentEndpoint`, `paymentAuth`, `paymentFunctionArn`. */
export const DownstreamContextKey = {
  /** Absolute https URL of the service (http too on an emulated profile). */
  endpoint: (service: string) => `${service}Endpoint`,
  /** `iam` or `none`. @default none */
  auth: (service: string) => `${service}Auth`,
  /** Required with auth `iam`: ARN of the Lambda function behind the function URL. */
  functionArn: (service: string) => `${service}FunctionArn`,
} as const;

const FUNCTION_URL_HOST = /^[a-z0-9]+\.lambda-url\.([a-z0-9-]+)\.on\.aws$/;
const FUNCTION_ARN =
  /^arn:aws[a-z-]*:lambda:([a-z0-9-]+):\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9$_-]+)?$/;

/** Resolves the downstream of a deployment from its profile and context; throws naming the settings at fault. */
export function resolveDownstream(
  platform: Pick<PlatformConfig, 'profile' | 'emulated'>,
  context: ContextReader,
  services: readonly ServiceName[] = DOWNSTREAM_SERVICES,
): Downstream {
  const demo = readFlag(context, PlatformContextKey.Demo);
  const raw = services.map((service) => ({
    service,
    url: readText(context, DownstreamContextKey.endpoint(service)),
    auth: readText(context, DownstreamContextKey.auth(service)),
    functionArn: readText(context, DownstreamContextKey.functionArn(service)),
  }));
  const named = raw.filter((entry) => entry.url !== undefined);
  const endpointKeys = (entries: readonly { service: string }[]) =>
    entries.map((entry) => DownstreamContextKey.endpoint(entry.service)).join(', ');

  const stray = raw.flatMap((entry) =>
    entry.url !== undefined
      ? []
      : [
          entry.auth !== undefined ? DownstreamContextKey.auth(entry.service) : undefined,
          entry.functionArn !== undefined ? DownstreamContextKey.functionArn(entry.service) : undefined,
        ].filter((key): key is string => key !== undefined),
  );
  if (stray.length > 0) {
    throw new Error(`Downstream: ${stray.join(', ')} set without the service's endpoint`);
  }
  if (demo && named.length > 0) {
    throw new Error(
      `Downstream: ${PlatformContextKey.Demo}=true deploys the fake services, so it cannot be combined with ${endpointKeys(named)}; choose one`,
    );
  }
  if (demo) return { kind: 'fakes' };
  if (named.length === 0) {
    if (platform.emulated) return { kind: 'fakes' };
    throw new Error(
      `Downstream: profile '${platform.profile}' deploys no fake services and no endpoint is set. Set ${endpointKeys(raw)} (CDK context, e.g. -c ${DownstreamContextKey.endpoint(raw[0]?.service ?? 'inventory')}=https://…), or deploy the fake services for a demo with -c ${PlatformContextKey.Demo}=true`,
    );
  }
  const missing = raw.filter((entry) => entry.url === undefined);
  if (missing.length > 0) {
    throw new Error(
      `Downstream: missing ${endpointKeys(missing)} (every service needs an endpoint once one is set; ${endpointKeys(named)} ${named.length === 1 ? 'is' : 'are'} set)`,
    );
  }

  const problems: string[] = [];
  const endpoints = Object.fromEntries(
    raw.map((entry) => [entry.service, serviceEndpoint(entry, platform.emulated, problems)]),
  ) as Record<ServiceName, ServiceEndpoint>;
  if (problems.length > 0) throw new Error(`Downstream: ${problems.join('; ')}`);
  return { kind: 'endpoints', endpoints };
}

function serviceEndpoint(
  entry: { service: string; url?: string; auth?: string; functionArn?: string },
  emulated: boolean,
  problems: string[],
): ServiceEndpoint {
  const urlKey = DownstreamContextKey.endpoint(entry.service);
  const authKey = DownstreamContextKey.auth(entry.service);
  const arnKey = DownstreamContextKey.functionArn(entry.service);
  const text = entry.url ?? '';
  const schemes = emulated ? ['https:', 'http:'] : ['https:'];
  const wanted = emulated ? 'an absolute http(s) URL' : 'an absolute https URL';
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    problems.push(`${urlKey} must be ${wanted}, got '${text}'`);
  }
  if (url) {
    if (!schemes.includes(url.protocol)) problems.push(`${urlKey} must be ${wanted}, got '${text}'`);
    if (url.username !== '' || url.password !== '') {
      problems.push(`${urlKey} must not carry credentials in the URL`);
    }
    if (url.search !== '' || url.hash !== '') {
      problems.push(
        `${urlKey} must have no query or fragment (the agent appends the operation path), got '${text}'`,
      );
    }
  }

  const auth = (entry.auth ?? 'none') as RemoteAuthMode;
  if (!(REMOTE_AUTH_MODES as readonly string[]).includes(auth)) {
    problems.push(
      `${authKey} must be ${REMOTE_AUTH_MODES.map((m) => `'${m}'`).join(' or ')}, got '${entry.auth}'`,
    );
  }
  if (auth === 'iam') {
    const urlRegion = url ? FUNCTION_URL_HOST.exec(url.hostname)?.[1] : undefined;
    if (url && urlRegion === undefined) {
      problems.push(
        `${urlKey} must be a Lambda function URL (https://<id>.lambda-url.<region>.on.aws) with ${authKey}=iam, got '${text}'`,
      );
    }
    const arnRegion = entry.functionArn ? FUNCTION_ARN.exec(entry.functionArn)?.[1] : undefined;
    if (entry.functionArn === undefined) {
      problems.push(
        `${arnKey} is required with ${authKey}=iam (the function the agent is allowed to invoke)`,
      );
    } else if (arnRegion === undefined) {
      problems.push(`${arnKey} must be a Lambda function ARN, got '${entry.functionArn}'`);
    } else if (urlRegion !== undefined && arnRegion !== urlRegion) {
      problems.push(`${arnKey} is in ${arnRegion} but ${urlKey} in ${urlRegion}`);
    }
  } else if (entry.functionArn !== undefined) {
    problems.push(`${arnKey} is only used with ${authKey}=iam`);
  }
  return {
    url: text.replace(/\/+$/, ''),
    auth,
    ...(entry.functionArn !== undefined && { functionArn: entry.functionArn }),
  };
}
