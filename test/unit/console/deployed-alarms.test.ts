/**
 * The deployed console's alarm panel (console/src/deployed-api.ts `alarms`): one DescribeAlarms
 * listing per stack the config names, by that stack's prefix, every page of it, each alarm labelled
 * with its wing. CloudWatch here is the local runtime's own (its API server, alarm store and request
 * checks), reached by the real SDK client, and every request is authorized by the local IAM
 * evaluator against the grant the console's role gets (DescribeAlarms on `alarm:<prefix>*` of each
 * stack, lib/scheduler-agent-supervisor/operator-console.ts): a listing of every alarm is refused.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { deployedConsoleApi } from '../../../console/src/deployed-api';
import { type AlarmDefinition, LocalAlarms } from '../../../lib/local-runtime/cloudwatch/alarms';
import { cloudWatchOperations } from '../../../lib/local-runtime/cloudwatch/api';
import { cloudWatchChecks } from '../../../lib/local-runtime/cloudwatch/iam-requests';
import { MetricStore } from '../../../lib/local-runtime/cloudwatch/metrics';
import { CloudWatchError, startCloudWatchServer } from '../../../lib/local-runtime/cloudwatch/server';
import { verifySigV4 } from '../../../lib/local-runtime/iam/identities';
import type { LoopbackServer } from '../../../lib/local-runtime/protocol/http-server';
import { TEST_ACCOUNT, TEST_REGION, type TestAccount, testAccount } from '../../support/local-iam';

const ORDERS = 'SchedulerAgentSupervisor-';
const DELIVERIES = 'DroneDelivery-';
/** More than one DescribeAlarms page (50 by default) of the orders' alarms. */
const ORDER_ALARMS = 60;

const alarmArn = (name: string) => `arn:aws:cloudwatch:${TEST_REGION}:${TEST_ACCOUNT}:alarm:${name}`;

function definition(alarmName: string): AlarmDefinition {
  return {
    alarmName,
    alarmArn: alarmArn(alarmName),
    metric: { namespace: 'Test', metricName: 'Errors', dimensions: {} },
    statistic: 'Sum',
    periodSeconds: 60,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    threshold: 1,
    comparisonOperator: 'GreaterThanOrEqualToThreshold',
    treatMissingData: 'notBreaching',
    actionsEnabled: false,
    alarmActions: [],
    okActions: [],
    insufficientDataActions: [],
  };
}

let account: TestAccount;
let server: LoopbackServer;
let alarms: LocalAlarms;

beforeAll(async () => {
  account = testAccount();
  const store = new MetricStore();
  alarms = new LocalAlarms({
    store,
    region: TEST_REGION,
    accountId: TEST_ACCOUNT,
    act: async () => undefined,
    onProblem: (message) => {
      throw new Error(message);
    },
  });
  for (let index = 0; index < ORDER_ALARMS; index += 1) {
    alarms.add(definition(`${ORDERS}DeadLetters${String(index).padStart(2, '0')}`));
  }
  for (const name of ['DeadLettersRelay', 'OutboxLag', 'DeliveryApi5xx'])
    alarms.add(definition(`${DELIVERIES}${name}`));
  // Another stack's alarm in the account: the console's role may not read it, nor list it.
  alarms.add(definition('SomeoneElse-Errors'));
  const scope = { region: TEST_REGION, accountId: TEST_ACCOUNT };
  server = await startCloudWatchServer(cloudWatchOperations(store, alarms), {
    authorize: async (operationName, input, request) => {
      const signed = await verifySigV4(request, account.iam.credentials, {
        region: TEST_REGION,
        service: 'monitoring',
      });
      if (!signed.ok)
        throw new CloudWatchError('InvalidClientTokenId', 'InvalidClientTokenId', signed.message, 403);
      const verdict = account.iam.authorizer.authorizeAll(
        cloudWatchChecks(operationName, input, scope).map((check) => ({
          principal: signed.identity.principal,
          ...check,
        })),
      );
      if (!verdict.allowed) throw new CloudWatchError('AccessDenied', 'AccessDenied', verdict.message, 403);
    },
  });
});
afterAll(() => server.stop());

/** The console's role, as the stack grants it: DescribeAlarms on each named stack's alarms. */
function consoleOperator(prefixes: readonly string[]) {
  const caller = account.role(
    `console-operator-${prefixes.length}`,
    [
      {
        Effect: 'Allow',
        Action: 'cloudwatch:DescribeAlarms',
        Resource: prefixes.map((prefix) => alarmArn(`${prefix}*`)),
      },
    ],
    { service: 'cognito-identity.amazonaws.com' },
  );
  const credentials = account.sdkCredentials(caller);
  return new CloudWatchClient({ region: TEST_REGION, endpoint: server.endpoint, credentials });
}

/** The deployed console's API over `alarmSources`, reading CloudWatch as `cloudWatch`'s caller. */
const consoleApi = (alarmSources: { wing: string; namePrefix: string }[], cloudWatch: CloudWatchClient) =>
  deployedConsoleApi(
    { region: TEST_REGION, apiUrl: 'http://127.0.0.1:9/unused', alarmSources },
    { accessKeyId: 'unused', secretAccessKey: 'unused' },
    cloudWatch,
  );
/** Both wings' alarm sources, as the composition root passes them. */
const BOTH_WINGS = [
  { wing: 'Orders', namePrefix: ORDERS },
  { wing: 'Deliveries', namePrefix: DELIVERIES },
];

describe('the deployed console alarm panel', () => {
  it("lists every alarm of each named stack, every page, labelled with its wing, and no other stack's", async () => {
    const api = consoleApi(BOTH_WINGS, consoleOperator([ORDERS, DELIVERIES]));
    const listed = await api.alarms();
    expect(listed).toHaveLength(ORDER_ALARMS + 3);
    expect(listed.filter((alarm) => alarm.wing === 'Orders').map((alarm) => alarm.name)).toEqual(
      Array.from(
        { length: ORDER_ALARMS },
        (_, index) => `${ORDERS}DeadLetters${String(index).padStart(2, '0')}`,
      ),
    );
    expect(listed.filter((alarm) => alarm.wing === 'Deliveries').map((alarm) => alarm.name)).toEqual([
      `${DELIVERIES}DeadLettersRelay`,
      `${DELIVERIES}DeliveryApi5xx`,
      `${DELIVERIES}OutboxLag`,
    ]);
    expect(listed.every((alarm) => alarm.state === 'INSUFFICIENT_DATA')).toBe(true);
  });

  it("is refused, in CloudWatch's words, a stack the role may not read; the grant is per prefix", async () => {
    const api = consoleApi(BOTH_WINGS, consoleOperator([ORDERS]));
    await expect(api.alarms()).rejects.toThrow(/not authorized to perform: cloudwatch:DescribeAlarms/);
    const everything = consoleApi([{ wing: 'All', namePrefix: '' }], consoleOperator([ORDERS, DELIVERIES]));
    await expect(everything.alarms()).rejects.toThrow(/not authorized/);
  });
});
