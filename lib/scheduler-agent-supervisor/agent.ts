import { Duration, Token } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  EnvKey,
  METRICS_NAMESPACE,
  REMOTE_CLIENT_REQUESTS_PER_CALL,
  type RemoteAuthMode,
  type StepDefinition,
  type WorkflowTimings,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import type { IdempotencyStore } from '../platform/idempotency-store';
import { LambdaFunction } from '../platform/lambda-function';
import { type RetryFactor, RetryPath } from '../platform/retry-path';
import { WorkQueue } from '../platform/work-queue';
import type { StateStore } from './state-store';

/**
 * Time the agent keeps after its step's deadline to report the outcome (SendTaskFailure) and
 * finish the batch; the agent never starts a remote call after the deadline itself.
 */
export const AGENT_TIMEOUT_MARGIN_SECONDS = 10;
/**
 * Receives before a request is dead-lettered. Small on purpose: the callback task times out long
 * before a redelivery could help, and the supervisor owns the retry (new attempt, new message).
 * A layer of the retry budget (README, "Retry budget"): its one home.
 */
export const AGENT_MAX_RECEIVE_COUNT = 3;
/** Requests handled per invocation; the batch processor runs them concurrently, each inside its own deadline. */
const AGENT_BATCH_SIZE = 5;

export interface AgentWorkerProps {
  /** The step this agent serves (ORDER_STEPS entry). */
  readonly step: StepDefinition;
  /** The deployment's workflow timings (step timeouts, heartbeats, supervisor rate), from its profile. */
  readonly timings: WorkflowTimings;
  /** Base URL of the remote service, no trailing slash; the agent appends `step.operationPath`. */
  readonly remoteEndpointUrl: string;
  /** `iam`: sign remote calls with SigV4 (Lambda function URL with AWS_IAM auth); `none`: do not. */
  readonly remoteAuth: RemoteAuthMode;
  /**
   * The function behind the remote function URL: the agent may invoke its URL (and nothing else).
   * @default - none; required with remoteAuth `iam`, refused with `none`
   */
  readonly remoteFunction?: lambda.IFunction;
  /** The Powertools idempotency table the agents share (keys prefixed by function name). */
  readonly idempotencyStore: IdempotencyStore;
  /** The state store: the agent reserves each call in the order's record (its retry budget). */
  readonly stateStore: StateStore;
  /**
   * The deployment's retry budget (calls per operation; config `retryBudget.callsPerOperation`):
   * for schema-2 records, and the bound this agent's call path is checked against at synth.
   */
  readonly retryBudget: number;
  /**
   * Receives of a request before it is dead-lettered.
   * @default AGENT_MAX_RECEIVE_COUNT
   */
  readonly maxReceiveCount?: number;
  /**
   * Most concurrent invocations of the request queue's event source (MaximumConcurrency, 2 to 1000;
   * the profile's agentMaxConcurrency).
   * @default DEFAULT_AGENT_MAX_CONCURRENCY
   */
  readonly maxConcurrency?: number;
  /**
   * Whether a live workflow version of the compact shape runs this step: its agent then records the
   * step Completed (and the order Processed after the last step) in the state record, and gets the
   * grant for it (StateStore.grantStepCompletion).
   * @default false
   */
  readonly recordsCompletions?: boolean;
}

/** The agents' event source concurrency when none is given: the default profile's. */
export const DEFAULT_AGENT_MAX_CONCURRENCY = 20;

/**
 * One agent of the pattern: the step's request queue (with its dead-letter queue), consumed by
 * the agent function that calls the remote service and answers the scheduler with the task token.
 */
export class AgentWorker extends Construct {
  readonly step: StepDefinition;
  readonly requests: WorkQueue;
  readonly agent: LambdaFunction;

  constructor(scope: Construct, id: string, props: AgentWorkerProps) {
    super(scope, id);
    validateRemote(this.node.path, props);
    this.step = props.step;
    const timeout = Duration.seconds(props.timings.stepTimeoutSeconds + AGENT_TIMEOUT_MARGIN_SECONDS);
    this.requests = new WorkQueue(this, 'Requests', {
      consumerTimeout: timeout,
      maxReceiveCount: props.maxReceiveCount ?? AGENT_MAX_RECEIVE_COUNT,
    });
    this.agent = new LambdaFunction(this, 'Agent', {
      handler: 'scheduler-agent-supervisor/handlers/agent',
      metricsNamespace: METRICS_NAMESPACE,
      description: `Agent of step ${props.step.name}: calls the ${props.step.service} service and answers the scheduler`,
      serviceName: `agent-${props.step.service}`,
      timeout,
      environment: {
        [EnvKey.StepName]: props.step.name,
        [EnvKey.RemoteEndpointUrl]: props.remoteEndpointUrl,
        [EnvKey.RemoteAuth]: props.remoteAuth,
        [EnvKey.IdempotencyTableName]: props.idempotencyStore.table.tableName,
        [EnvKey.WorkflowTimings]: JSON.stringify(props.timings),
        [EnvKey.StateTableName]: props.stateStore.tableName,
        [EnvKey.RetryBudget]: String(props.retryBudget),
      },
    });
    this.requests.consumeWith(this.agent.function, AGENT_BATCH_SIZE, {
      maxConcurrency: props.maxConcurrency ?? DEFAULT_AGENT_MAX_CONCURRENCY,
    });
    props.idempotencyStore.grantPersistence(this.agent.function);
    props.stateStore.grantCallReservation(this.agent.function);
    if (props.recordsCompletions === true) props.stateStore.grantStepCompletion(this.agent.function);
    props.remoteFunction?.grantInvokeUrl(this.agent.function);
    this.declareRetryPaths(props);
  }

  /**
   * The layers that multiply the calls one operation of one order can make to the step's service,
   * for the retry budget guardrail (lib/platform/guardrails/retry-budget.ts), which reads each
   * number from the synthesized template: a step runs once per supervisor attempt (maxFailures), a
   * compensation once per compensation attempt (maxCompensationFailures); each run is one task
   * execution (1 + its Retry), each request is received up to maxReceiveCount times, each receive
   * makes up to maxCallAttempts calls (the number the state machine puts in the request, which the
   * agent obeys), and each call is REMOTE_CLIENT_REQUESTS_PER_CALL request(s) on the wire.
   */
  private declareRetryPaths(props: AgentWorkerProps): void {
    const queue = this.requests.queue;
    const timing = (field: keyof WorkflowTimings) => ({
      kind: 'environment-json' as const,
      function: this.agent.function,
      variable: EnvKey.WorkflowTimings,
      field,
    });
    const perRun: RetryFactor[] = [
      { layer: 'Step Functions task executions', source: { kind: 'task-executions', queue } },
      { layer: 'SQS receives', source: { kind: 'max-receive-count', queue } },
      {
        layer: 'agent call attempts',
        source: { kind: 'task-message-field', queue, field: 'maxCallAttempts' },
      },
      {
        layer: 'remote client requests per call',
        source: {
          kind: 'fixed',
          value: REMOTE_CLIENT_REQUESTS_PER_CALL,
          where: 'REMOTE_CLIENT_REQUESTS_PER_CALL, contracts/retry-budget.ts',
        },
      },
    ];
    const budgetSource = 'retryBudget.callsPerOperation';
    new RetryPath(this, 'StepRetryPath', {
      operation: `${props.step.service} ${props.step.name}`,
      budget: props.retryBudget,
      budgetSource,
      factors: [{ layer: 'supervisor attempts', source: timing('maxFailures') }, ...perRun],
    });
    new RetryPath(this, 'CompensationRetryPath', {
      operation: `${props.step.service} ${props.step.compensation.name}`,
      budget: props.retryBudget,
      budgetSource,
      factors: [{ layer: 'compensation attempts', source: timing('maxCompensationFailures') }, ...perRun],
    });
  }

  /** The queue the scheduler sends this step's requests to. */
  get requestQueue(): sqs.IQueue {
    return this.requests.queue;
  }
}

function validateRemote(where: string, props: AgentWorkerProps): void {
  const problems: string[] = [];
  const url = props.remoteEndpointUrl;
  if (url.endsWith('/')) problems.push("remoteEndpointUrl must not end with '/'");
  // A token (the fake service's function URL) is only known at deploy time.
  if (!Token.isUnresolved(url) && !/^https?:\/\/[^/]/.test(url)) {
    problems.push(`remoteEndpointUrl must be an absolute http(s) URL, got '${url}'`);
  }
  if (props.remoteAuth === 'iam' && props.remoteFunction === undefined) {
    problems.push("remoteAuth 'iam' needs the remoteFunction the agent is allowed to invoke");
  }
  if (props.remoteAuth === 'none' && props.remoteFunction !== undefined) {
    problems.push("remoteFunction is only used with remoteAuth 'iam'");
  }
  if (problems.length > 0) throw new Error(`AgentWorker ${where}: ${problems.join('; ')}`);
}
