import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  EnvKey,
  METRICS_NAMESPACE,
  type RemoteAuthMode,
  type StepDefinition,
  type WorkflowTimings,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import type { IdempotencyStore } from '../platform/idempotency-store';
import { LambdaFunction } from '../platform/lambda-function';
import { WorkQueue } from '../platform/work-queue';

/**
 * Time the agent keeps after its step's deadline to report the outcome (SendTaskFailure) and
 * finish the batch; the agent never starts a remote call after the deadline itself.
 */
export const AGENT_TIMEOUT_MARGIN_SECONDS = 10;
/**
 * Receives before a request is dead-lettered. Small on purpose: the callback task times out long
 * before a redelivery could help, and the supervisor owns the retry (new attempt, new message).
 */
const AGENT_MAX_RECEIVE_COUNT = 3;
/** Requests handled per invocation; the batch processor runs them concurrently, each inside its own deadline. */
const AGENT_BATCH_SIZE = 5;

export interface AgentWorkerProps {
  /** The step this agent serves (ORDER_STEPS entry). */
  readonly step: StepDefinition;
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
  readonly idempotencyStore: IdempotencyStore;
  readonly retainData: boolean;
  readonly logRetentionDays: number;
}

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
      retainData: props.retainData,
      consumerTimeout: timeout,
      maxReceiveCount: AGENT_MAX_RECEIVE_COUNT,
    });
    this.agent = new LambdaFunction(this, 'Agent', {
      handler: 'scheduler-agent-supervisor/handlers/agent',
      metricsNamespace: METRICS_NAMESPACE,
      description: `Agent of step ${props.step.name}: calls the ${props.step.service} service and answers the scheduler`,
      serviceName: `agent-${props.step.service}`,
      logRetentionDays: props.logRetentionDays,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      timeout,
      environment: {
        [EnvKey.StepName]: props.step.name,
        [EnvKey.RemoteEndpointUrl]: props.remoteEndpointUrl,
        [EnvKey.RemoteAuth]: props.remoteAuth,
        [EnvKey.IdempotencyTableName]: props.idempotencyStore.table.tableName,
        [EnvKey.WorkflowTimings]: JSON.stringify(props.timings),
      },
    });
    this.requests.consumeWith(this.agent.function, AGENT_BATCH_SIZE);
    props.idempotencyStore.grantPersistence(this.agent.function);
    props.remoteFunction?.grantInvokeUrl(this.agent.function);
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
