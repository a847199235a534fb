import { Aws, Fn, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  CONSOLE_CONFIG_FILE,
  type ConsoleAlarmSource,
  type DeployedConsoleConfig,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { alarmNamePrefix } from '../../lambdas/shared/alarm-spec';
import { type OperatorRoutes, operatorApiOrigin, operatorMethodArns } from '../platform/operator-routes';
import { OperatorSignIn } from '../platform/operator-sign-in';
import { acknowledgeOnDefaultPolicy, nagResourceName } from '../platform/scoped-role';
import { StaticSite } from '../platform/static-site';
import type { OperatorApi } from './operator-api';

export interface OperatorConsoleProps {
  /** The built page (`npm run console:build -- --deployed` writes it; bin/app.ts builds it at synth). */
  readonly assetsDir: string;
  /** The operator routes the console calls, on the orders REST API. */
  readonly operatorApi: OperatorApi;
  /** The orders REST API's stage URL (no trailing slash): the page's API base. */
  readonly apiUrl: string;
  /**
   * Another app's operator routes the console reads (the drone delivery API's, for the Deliveries
   * tab), handed over by the composition root: this wing never imports that one. Their API must
   * allow this console's origin itself (its stack reads this one's, not the other way round).
   * @default - no Deliveries tab
   */
  readonly deliveryApi?: OperatorRoutes;
  /**
   * Other stacks' alarms the page shows besides this stack's (the drone delivery's), each by its
   * name prefix, handed over by the composition root: the operators' role may DescribeAlarms on
   * each prefix and nothing else. A prefix is a plain string (a stack name), so nothing is imported.
   * @default - this stack's alarms only
   */
  readonly otherAlarms?: readonly ConsoleAlarmSource[];
  /**
   * The sign-in page's domain prefix (`<prefix>.auth.<region>.amazoncognito.com`, unique in the region).
   * @default - `orders-console-<account id>`
   */
  readonly signInDomainPrefix?: string;
}

/**
 * The deployed operator console (README, Operator console): the page on a StaticSite, operators
 * signed in by OperatorSignIn, and what a signed-in operator may do: `execute-api:Invoke` on the
 * operator routes, `cloudwatch:DescribeAlarms` on this stack's alarms and those of `otherAlarms`,
 * and `cloudwatch:GetMetricData` (no resource to scope it to) for the dashboard; nothing else. The page is told where everything is by CONSOLE_CONFIG_FILE, written at deploy; it
 * holds no secret.
 */
export class OperatorConsole extends Construct {
  readonly site: StaticSite;
  readonly signIn: OperatorSignIn;
  /** The alarms the page lists (config.json's `alarmSources`), this stack's first; the role reads these only. */
  readonly alarmSources: readonly ConsoleAlarmSource[];

  constructor(scope: Construct, id: string, props: OperatorConsoleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const alarmSources: readonly ConsoleAlarmSource[] = [
      { wing: ORDERS_WING, namePrefix: alarmNamePrefix(stack.stackName) },
      ...(props.otherAlarms ?? []),
    ];
    validateAlarmSources(this.node.path, alarmSources);
    this.alarmSources = alarmSources;
    const region = Aws.REGION;
    const signInDomainPrefix = props.signInDomainPrefix ?? Fn.join('-', ['orders-console', Aws.ACCOUNT_ID]);
    const signInOrigin = `https://${signInDomainPrefix}.auth.${region}.amazoncognito.com`;
    // What the page calls: the token endpoint, the identity pool, the operator APIs, CloudWatch.
    const connectSources = [
      "'self'",
      signInOrigin,
      `https://cognito-identity.${region}.amazonaws.com`,
      operatorApiOrigin(props.operatorApi.api),
      ...(props.deliveryApi ? [operatorApiOrigin(props.deliveryApi)] : []),
      `https://monitoring.${region}.amazonaws.com`,
    ];
    this.site = new StaticSite(this, 'Site', {
      assetsDir: props.assetsDir,
      contentSecurityPolicy: [
        "default-src 'self'",
        "img-src 'self' data:",
        "style-src 'self'",
        "script-src 'self'",
        `connect-src ${connectSources.join(' ')}`,
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
      ].join('; '),
    });
    this.signIn = new OperatorSignIn(this, 'SignIn', {
      callbackUrl: `${this.site.origin}/`,
      domainPrefix: signInDomainPrefix,
    });
    const config: DeployedConsoleConfig = {
      mode: 'deployed',
      region,
      apiUrl: props.apiUrl,
      userPoolId: this.signIn.userPool.userPoolId,
      userPoolClientId: this.signIn.client.userPoolClientId,
      signInUrl: this.signIn.signInUrl,
      identityPoolId: this.signIn.identityPool.ref,
      alarmSources,
      ...(props.deliveryApi && { deliveryApiUrl: props.deliveryApi.url }),
    };
    this.site.addJsonFile(CONSOLE_CONFIG_FILE, { ...config });

    const role = this.signIn.authenticatedRole;
    const routes = props.operatorApi.methods.map((method) => method.methodArn);
    role.addToPolicy(new iam.PolicyStatement({ actions: ['execute-api:Invoke'], resources: routes }));
    // A route's {orderId} is `*` in its method ARN: any order, that route and method only.
    for (const route of routes
      .map((arn) => nagResourceName(this, arn))
      .filter((name) => name.includes('*'))) {
      acknowledgeOnDefaultPolicy(role, {
        id: `AwsSolutions-IAM5[Resource::${route}]`,
        reason:
          'An operator route of the orders API with its {orderId} path parameter (any order): that one method on that one route.',
      });
    }
    if (props.deliveryApi) this.allowDeliveryRoutes(props.deliveryApi);
    this.allowAlarms(alarmSources);
    this.allowDashboardMetrics();
    props.operatorApi.allowBrowserOrigin(this.site.origin);
  }

  /**
   * `cloudwatch:DescribeAlarms` on each source's alarms (`alarm:<prefix>*`), and no other alarm:
   * the page lists them by that prefix. Each prefix's `*` acknowledged by the name cdk-nag gives it.
   */
  private allowAlarms(sources: readonly ConsoleAlarmSource[]): void {
    const role = this.signIn.authenticatedRole;
    const arns = sources.map(
      (source) =>
        `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:${source.namePrefix}*`,
    );
    role.addToPolicy(new iam.PolicyStatement({ actions: ['cloudwatch:DescribeAlarms'], resources: arns }));
    sources.forEach((source, index) => {
      acknowledgeOnDefaultPolicy(role, {
        id: `AwsSolutions-IAM5[Resource::${nagResourceName(this, arns[index] as string)}]`,
        reason: `The console's alarm panel reads the ${source.wing} stack's alarms (their names start with the stack's name), DescribeAlarms only.`,
      });
    });
  }

  /**
   * `cloudwatch:GetMetricData`, for the dashboard of the last hour (console/contract/dashboard.ts:
   * both wings' OrdersEnteredState and DeliveriesEnteredStatus). IAM cannot narrow it: the action has
   * no resource type and no condition key (not even `cloudwatch:namespace`, which only PutMetricData
   * has; the Service Authorization Reference for CloudWatch, and the local IAM's request table,
   * lib/local-runtime/cloudwatch/iam-requests.ts), so it is `Resource: *`, acknowledged. It reads
   * metric values only (no alarm, dashboard or log), of this account and region.
   */
  private allowDashboardMetrics(): void {
    const role = this.signIn.authenticatedRole;
    role.addToPolicy(new iam.PolicyStatement({ actions: ['cloudwatch:GetMetricData'], resources: ['*'] }));
    acknowledgeOnDefaultPolicy(role, {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "The console's dashboard reads the orders' and deliveries' per-state counts with cloudwatch:GetMetricData, which has no resource type or condition key to scope it by: read-only metric values of this account and region.",
    });
  }

  /**
   * `execute-api:Invoke` on the delivery API's operator methods, and only those. A `{deliveryId}`
   * route is `*` in its method ARN (any delivery, that method on that route only): acknowledged by
   * the resource cdk-nag names, computed from the same ARN as the grant.
   */
  private allowDeliveryRoutes(routes: OperatorRoutes): void {
    const role = this.signIn.authenticatedRole;
    const arns = operatorMethodArns(routes);
    role.addToPolicy(new iam.PolicyStatement({ actions: ['execute-api:Invoke'], resources: arns }));
    for (const route of arns.map((arn) => nagResourceName(this, arn)).filter((name) => name.includes('*'))) {
      acknowledgeOnDefaultPolicy(role, {
        id: `AwsSolutions-IAM5[Resource::${route}]`,
        reason:
          'An operator route of the delivery API with its {deliveryId} path parameter (any delivery): that one method on that one route.',
      });
    }
  }
}

/** How the page labels this stack's alarms. */
const ORDERS_WING = 'Orders';

/**
 * Each source labelled, labels distinct, and each prefix non-empty, without IAM wildcards, and not
 * the start of another (an alarm would be listed twice, under two wings); throws naming the source.
 */
function validateAlarmSources(owner: string, sources: readonly ConsoleAlarmSource[]): void {
  const problem = (message: string) => new Error(`OperatorConsole ${owner}: ${message}`);
  const wings = new Set<string>();
  for (const source of sources) {
    if (source.wing.trim() === '')
      throw problem(`an alarm source (prefix '${source.namePrefix}') has no wing label`);
    if (wings.has(source.wing)) throw problem(`two alarm sources are labelled '${source.wing}'`);
    wings.add(source.wing);
    if (Token.isUnresolved(source.namePrefix)) continue;
    if (source.namePrefix === '')
      throw problem(`the ${source.wing} alarms have an empty name prefix (every alarm)`);
    if (/[*?]/.test(source.namePrefix))
      throw problem(
        `the ${source.wing} alarm prefix '${source.namePrefix}' has a wildcard, which would widen the grant`,
      );
    const overlapping = sources.find(
      (other) =>
        other !== source &&
        !Token.isUnresolved(other.namePrefix) &&
        other.namePrefix.startsWith(source.namePrefix),
    );
    if (overlapping) {
      throw problem(
        `the ${source.wing} alarm prefix '${source.namePrefix}' also takes the ${overlapping.wing} alarms ('${overlapping.namePrefix}')`,
      );
    }
  }
}
