/**
 * The deployed console's ConsoleApi: the page calls the operator API itself, each request signed
 * with SigV4 (service execute-api, the stack's region) with the signed-in operator's temporary
 * credentials from the Cognito identity pool (sign-in.ts), so the page holds no long-lived secret
 * and the API keeps its AWS_IAM authorisation; the deliveries likewise from the delivery API's
 * operator routes, when the config names that API; the alarms come from CloudWatch with the same
 * credentials, one listing per stack the config names (its alarm name prefix: the role may
 * DescribeAlarms on those prefixes only, so a listing without a prefix would be refused), each
 * alarm labelled with its wing; the dashboard's metrics from CloudWatch's GetMetricData likewise
 * (console/contract/dashboard.ts, the same query and reading as the local backend's).
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { CloudWatchClient, DescribeAlarmsCommand, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  type DeliveryDetailBody,
  type DeliveryListBody,
  OperatorDeliveryRoute,
} from '../../lambdas/choreography/contracts/operator';
import {
  OperatorAction,
  type OperatorActionResultBody,
  type OperatorOrderDetailBody,
  type OperatorOrderListBody,
  type OperatorRefusalBody,
  OperatorRoute,
} from '../../lambdas/scheduler-agent-supervisor/contracts/api';
import type { DeployedConsoleConfig } from '../../lambdas/scheduler-agent-supervisor/contracts/console';
import type { OperatorWorkflowBody } from '../../lambdas/scheduler-agent-supervisor/contracts/operator-workflow';
import { type SignedRequest, sendSigned } from '../../lambdas/shared/signed-request';
import { type AlarmView, alarmViewOf } from '../contract/console-api';
import { readDashboard } from '../contract/dashboard';
import { countStates, type ListQuery } from '../contract/state-counts';
import { type Answer, type ConsoleApi, messageOf, readJsonBody } from './api';

/** The identity pool's credentials (a provider: the SDK refreshes them) or fixed ones. */
export type OperatorCredentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

/** The API Gateway signing name of AWS_IAM methods. */
const EXECUTE_API = 'execute-api';

/** The config's fields the calls need. */
export type DeployedApiConfig = Pick<
  DeployedConsoleConfig,
  'region' | 'apiUrl' | 'alarmSources' | 'deliveryApiUrl'
>;

export function deployedConsoleApi(
  config: DeployedApiConfig,
  credentials: OperatorCredentials,
  cloudWatch: Pick<CloudWatchClient, 'send'> = new CloudWatchClient({ region: config.region, credentials }),
  /** The time the dashboard's hour ends at (CloudWatch's metrics are on the wall clock). */
  now: () => number = Date.now,
): ConsoleApi {
  const signer = new SignatureV4({
    service: EXECUTE_API,
    region: config.region,
    credentials,
    sha256: Sha256,
  });
  /** One signed call to the API at `apiUrl`, named `apiName` in errors; statuses outside `accept` throw in words. */
  const callApi = async <T>(
    apiUrl: string,
    apiName: string,
    request: Omit<SignedRequest, 'url'> & { path: string },
    accept: readonly number[] = [200],
  ): Promise<Answer<T>> => {
    let response: Response;
    try {
      response = await sendSigned(signer, {
        ...request,
        url: `${apiUrl.replace(/\/+$/, '')}${request.path}`,
      });
    } catch (error) {
      throw new Error(`The ${apiName} cannot be reached (${(error as Error).message}).`);
    }
    const { body, text } = await readJsonBody(response);
    if (!accept.includes(response.status)) {
      const hint =
        response.status === 403 ? ' (signed in? your session may have expired: reload the page)' : '';
      throw new Error(`${response.status} ${response.statusText}: ${messageOf(body, text)}${hint}`);
    }
    return { status: response.status, body: body as T };
  };
  const call = <T>(request: Omit<SignedRequest, 'url'> & { path: string }, accept?: readonly number[]) =>
    callApi<T>(config.apiUrl, 'operator API', request, accept);

  const orders = async (query: ListQuery) =>
    (
      await call<OperatorOrderListBody>({
        method: 'GET',
        path: OperatorRoute.orders,
        query: {
          state: query.state,
          ...(query.limit !== undefined && { limit: String(query.limit) }),
          ...(query.cursor !== undefined && { cursor: query.cursor }),
        },
      })
    ).body;

  const { deliveryApiUrl } = config;
  /** A GET on the delivery API's operator routes; refused in words when this deployment has none. */
  const deliveryCall = async <T>(path: string, query?: Record<string, string>): Promise<T> => {
    if (deliveryApiUrl === undefined)
      throw new Error('This console has no Deliveries tab: its deployment names no delivery API.');
    return (
      await callApi<T>(deliveryApiUrl, 'delivery API', { method: 'GET', path, ...(query && { query }) })
    ).body;
  };

  return {
    servesDeliveries: deliveryApiUrl !== undefined,
    counts: () => countStates(orders),
    orders,
    order: async (orderId) =>
      (await call<OperatorOrderDetailBody>({ method: 'GET', path: OperatorRoute.order(orderId) })).body,
    workflow: async (orderId) =>
      (await call<OperatorWorkflowBody>({ method: 'GET', path: OperatorRoute.workflow(orderId) })).body,
    act: (orderId, action, request) =>
      call<OperatorActionResultBody | OperatorRefusalBody>(
        {
          method: 'POST',
          path:
            action === OperatorAction.Retry ? OperatorRoute.retry(orderId) : OperatorRoute.cancel(orderId),
          body: JSON.stringify(request),
        },
        [200, 409],
      ),
    alarms: async () => {
      const alarms: AlarmView[] = [];
      for (const { wing, namePrefix } of config.alarmSources) {
        let nextToken: string | undefined;
        do {
          const page = await cloudWatch.send(
            new DescribeAlarmsCommand({
              AlarmNamePrefix: namePrefix,
              ...(nextToken !== undefined && { NextToken: nextToken }),
            }),
          );
          alarms.push(...(page.MetricAlarms ?? []).map((alarm) => ({ ...alarmViewOf(alarm), wing })));
          nextToken = page.NextToken;
        } while (nextToken !== undefined);
      }
      return alarms;
    },
    dashboard: () => readDashboard((input) => cloudWatch.send(new GetMetricDataCommand(input)), now()),
    deliveries: (status) =>
      deliveryCall<DeliveryListBody>(OperatorDeliveryRoute.deliveries, status ? { status } : undefined),
    delivery: (deliveryId) => deliveryCall<DeliveryDetailBody>(OperatorDeliveryRoute.delivery(deliveryId)),
  };
}
