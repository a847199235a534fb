import { Duration, Fn } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { FAKES_METRICS_NAMESPACE, FakesEnvKey, LedgerAttr } from '../../lambdas/fakes/contracts';
import { createDataTable, type DataTableOptions, grantTableActions } from '../platform/data-table';
import { LambdaFunction } from '../platform/lambda-function';

/**
 * Reserved concurrency of the fake service: it both caps what an API key holder can tie up
 * (a STALL-ONCE order holds one execution for remoteStallMillis) and keeps the demo serving
 * while that happens. Five covers the acceptance suite (orders one at a time, one stalled) and
 * a hand-driven demo; calls beyond it are throttled (429), which the agents retry as transient.
 * It counts against the account: AWS keeps 10 executions unreserved, and the supervisor reserves
 * 1, so a demo needs an account concurrency quota of at least 16.
 */
export const FAKE_SERVICE_RESERVED_CONCURRENCY = 5;

/** How long a SLOW order's calls are held unless the deployment says otherwise. */
export const DEFAULT_SLOW_MILLIS = 1_500;

export interface RemoteServicesProps extends DataTableOptions {
  /** How long a STALL-ONCE call is held before the request fails (config.remoteStallMillis). */
  readonly stallMillis: number;
  /**
   * How long every call of a SLOW order waits before it is answered: long enough to keep orders in
   * flight for admission control, short enough to stay inside an agent's step timeout.
   * @default DEFAULT_SLOW_MILLIS
   */
  readonly slowMillis?: number;
  /** @default FAKE_SERVICE_RESERVED_CONCURRENCY */
  readonly reservedConcurrentExecutions?: number;
}

/** Time the function keeps after a stalled call to fail it cleanly instead of being killed. */
const STALL_MARGIN_SECONDS = 10;

/**
 * The fake downstream (inventory, payment, shipping) the agents call: one function behind a
 * Lambda function URL (IAM auth) serving every operation path, recording each effect once in a
 * ledger table keyed by service and Idempotency-Key. Deployed with the local profile and on
 * demand (`-c demo=true`) so the failure scenarios (lambdas/fakes/domain/remote-scenarios.ts) can be
 * exercised end to end; never in front of real services.
 */
export class RemoteServices extends Construct {
  readonly ledgerTable: dynamodb.Table;
  readonly service: LambdaFunction;
  readonly functionUrl: lambda.FunctionUrl;
  /** Base URL of the function URL without a trailing slash, e.g. `https://abc.lambda-url.eu-west-1.on.aws`. */
  readonly endpointUrl: string;

  /** The function behind the IAM-authenticated URL (what a caller is granted to invoke). */
  get urlFunction(): lambda.IFunction {
    return this.service.function;
  }

  constructor(scope: Construct, id: string, props: RemoteServicesProps) {
    super(scope, id);
    const slowMillis = props.slowMillis ?? DEFAULT_SLOW_MILLIS;
    for (const [name, value] of [
      ['stallMillis', props.stallMillis],
      ['slowMillis', slowMillis],
    ] as const) {
      if (!Number.isInteger(value) || value < 0) {
        throw new Error(
          `RemoteServices ${this.node.path}: ${name} must be a non-negative integer, got ${value}`,
        );
      }
    }
    this.ledgerTable = createDataTable(this, 'Ledger', {
      ...props,
      partitionKey: { name: LedgerAttr.Pk, type: dynamodb.AttributeType.STRING },
    });
    this.service = new LambdaFunction(this, 'Service', {
      handler: 'fakes/handlers/remote-service',
      metricsNamespace: FAKES_METRICS_NAMESPACE,
      description: 'Fake downstream services (inventory, payment, shipping) with scripted failure scenarios',
      serviceName: 'remote-service',
      // A SLOW and STALL-ONCE order waits for both.
      timeout: Duration.seconds(Math.ceil((props.stallMillis + slowMillis) / 1000) + STALL_MARGIN_SECONDS),
      reservedConcurrentExecutions: props.reservedConcurrentExecutions ?? FAKE_SERVICE_RESERVED_CONCURRENCY,
      environment: {
        [FakesEnvKey.LedgerTableName]: this.ledgerTable.tableName,
        [FakesEnvKey.StallMillis]: String(props.stallMillis),
        [FakesEnvKey.SlowMillis]: String(slowMillis),
      },
    });
    // An undo's transaction (TransactWriteItems) is authorized by the Put and Update it holds.
    grantTableActions(
      this.ledgerTable,
      this.service.function,
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    );
    this.functionUrl = this.service.function.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM });
    // The URL attribute ends with '/'; callers append operation paths that start with '/'.
    const parts = Fn.split('/', this.functionUrl.url);
    this.endpointUrl = `${Fn.select(0, parts)}//${Fn.select(2, parts)}`;
  }
}

/**
 * The fake downstream of the Scheduler Agent Supervisor wing, as its composition root passes it
 * (`addSchedulerAgentSupervisor(app, remoteServicesDownstream)`): built inside the wing's stack.
 */
export function remoteServicesDownstream(
  scope: Construct,
  settings: Pick<RemoteServicesProps, 'stallMillis'>,
): RemoteServices {
  return new RemoteServices(scope, 'RemoteServices', settings);
}
