/**
 * The runtime's CloudWatch end to end, on a small app (fixtures/metrics-app.ts) with 10-second
 * alarm periods: a dead-letter queue filling raises its alarm and CloudWatch's notification reaches
 * the queue subscribed to the alarm's topic, draining it sends the OK; the heartbeat a function
 * emits with Powertools Metrics is served by GetMetricData and keeps its alarm OK, and missing
 * heartbeats breach once they are out of the evaluation range; API Gateway's metrics are recorded per
 * stage and a 5xx of the API raises the alarm on 5XXError; the SDK and the AWS CLI read alarms,
 * and `npm run orders -- metrics` reports figures and alarm states.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Sha256 } from '@aws-crypto/sha256-js';
import {
  CloudWatchClient,
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  GetMetricStatisticsCommand,
  PutMetricDataCommand,
  ResourceNotFound,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import {
  DeleteMessageCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { cbor } from '@smithy/core/cbor';
import { SignatureV4 } from '@smithy/signature-v4';
import { METRICS_NAMESPACE } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { metricsReport } from '../../../../lib/harness/metrics-report';
import { type LocalRuntime, PROJECT_ROOT, startLocalRuntime } from '../../../../lib/local-runtime';
import { writeTarget } from '../../../../lib/local-runtime/target';
import {
  DLQ_ALARM,
  FIXTURE_API_NAME,
  FIXTURE_API_STAGE,
  FIXTURE_NAMESPACE,
  HEARTBEAT_ALARM,
  MATH_ALARM,
  SERVER_ERRORS_ALARM,
  synthesizeMetricsApp,
} from '../fixtures/metrics-app';

jest.setTimeout(120_000);

interface Notification {
  readonly subject?: string;
  readonly body: Record<string, unknown> & { Trigger: Record<string, unknown> };
}

const NO_POLICY_USER = 'no-policy';

describe('CloudWatch of the local runtime', () => {
  let workDir: string;
  let runtime: LocalRuntime;
  let cloudwatch: CloudWatchClient;
  let sqs: SQSClient;
  let outputs: Readonly<Record<string, string>>;
  const logLines: string[] = [];
  let heartbeatSentAt: Date;
  let targetFile: string;
  /** Every alarm notification the inbox received, in order. */
  const notifications: Notification[] = [];

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'cloudwatch-runtime-'));
    targetFile = join(workDir, 'target.json');
    synthesizeMetricsApp(join(workDir, 'cdk.out'));
    runtime = await startLocalRuntime({
      assemblyDir: join(workDir, 'cdk.out'),
      port: 0,
      targetFile: null,
      // A local user the composition gives no policy: CloudWatch refuses it everything.
      users: { [NO_POLICY_USER]: {} },
      log: (line) => logLines.push(line),
    });
    const clientConfig = { region: runtime.target.region, credentials: { ...runtime.target.credentials } };
    cloudwatch = new CloudWatchClient({ ...clientConfig, endpoint: runtime.target.endpoints.cloudwatch });
    sqs = new SQSClient({ ...clientConfig, endpoint: runtime.target.endpoints.sqs });
    outputs = runtime.target.outputs;
    // The heartbeat goes first: its evaluation range runs out while the other cases run.
    heartbeatSentAt = new Date();
    await sqs.send(new SendMessageCommand({ QueueUrl: outputs.WorkQueueUrl, MessageBody: '3' }));
  });

  afterAll(async () => {
    cloudwatch?.destroy();
    sqs?.destroy();
    await runtime?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** Reads the inbox until a notification after `after` (an index) satisfies `wanted`; its index. */
  async function waitForNotification(
    wanted: (notification: Notification) => boolean,
    after = -1,
  ): Promise<number> {
    for (;;) {
      const found = notifications.findIndex((notification, index) => index > after && wanted(notification));
      if (found >= 0) return found;
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: outputs.InboxUrl,
          WaitTimeSeconds: 2,
          MaxNumberOfMessages: 10,
        }),
      );
      for (const message of Messages) {
        // Raw delivery: the body is CloudWatch's message itself.
        notifications.push({ body: JSON.parse(message.Body ?? '{}') as Notification['body'] });
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: outputs.InboxUrl, ReceiptHandle: message.ReceiptHandle }),
        );
      }
    }
  }

  const of = (alarmName: string, state: string) => (notification: Notification) =>
    notification.body.AlarmName === alarmName && notification.body.NewStateValue === state;

  it('evaluates the single-metric alarms of the template and names the metric math one it does not run', async () => {
    expect(runtime.unsupported).toContainEqual(
      expect.objectContaining({
        type: 'AWS::CloudWatch::Alarm',
        reason: 'not evaluated: metric math alarms are not evaluated locally',
      }),
    );
    expect(runtime.inert).not.toContain('AWS::CloudWatch::*');
    const { MetricAlarms = [] } = await cloudwatch.send(new DescribeAlarmsCommand({}));
    expect(MetricAlarms.map((alarm) => alarm.AlarmName)).toEqual([
      DLQ_ALARM,
      HEARTBEAT_ALARM,
      SERVER_ERRORS_ALARM,
    ]);
    expect(MetricAlarms[0]).toMatchObject({
      AlarmArn: `arn:aws:cloudwatch:us-east-1:000000000000:alarm:${DLQ_ALARM}`,
      AlarmDescription: 'Messages wait in the dead-letter queue',
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: outputs.DeadLettersName }],
      Statistic: 'Maximum',
      Period: 10,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [outputs.OperatorTopicArn],
      OKActions: [outputs.OperatorTopicArn],
    });
    expect(MetricAlarms[0]?.StateUpdatedTimestamp).toBeInstanceOf(Date);
    await expect(
      cloudwatch.send(
        new SetAlarmStateCommand({ AlarmName: MATH_ALARM, StateValue: 'ALARM', StateReason: 'x' }),
      ),
    ).rejects.toThrow(ResourceNotFound);
  });

  it('raises the dead-letter alarm when its queue fills, with the notification AWS sends, and sends OK once drained', async () => {
    // Both in one request: an evaluation between two sends would see one message, not two.
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: outputs.DeadLettersUrl,
        Entries: ['lost-1', 'lost-2'].map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
    const raised = await waitForNotification(of(DLQ_ALARM, 'ALARM'));
    const { body } = notifications[raised] as Notification;
    expect(body).toMatchObject({
      AlarmName: DLQ_ALARM,
      AlarmDescription: 'Messages wait in the dead-letter queue',
      AWSAccountId: '000000000000',
      Region: 'US East (N. Virginia)',
      AlarmArn: `arn:aws:cloudwatch:us-east-1:000000000000:alarm:${DLQ_ALARM}`,
      NewStateValue: 'ALARM',
      NewStateReason: expect.stringMatching(
        /^Threshold Crossed: 1 out of the last 1 datapoints \[2\.0 \(.+\)\] was greater than or equal to the threshold \(1\.0\)/,
      ),
      StateChangeTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/),
      AlarmActions: [outputs.OperatorTopicArn],
      Trigger: {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Namespace: 'AWS/SQS',
        StatisticType: 'Statistic',
        Statistic: 'MAXIMUM',
        Unit: null,
        Dimensions: [{ value: outputs.DeadLettersName, name: 'QueueName' }],
        Period: 10,
        EvaluationPeriods: 1,
        DatapointsToAlarm: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        TreatMissingData: '- TreatMissingData:                    notBreaching',
      },
    });
    expect(['OK', 'INSUFFICIENT_DATA']).toContain(body.OldStateValue);
    const { MetricAlarms = [] } = await cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNames: [DLQ_ALARM] }),
    );
    expect(MetricAlarms[0]?.StateValue).toBe('ALARM');

    await sqs.send(new PurgeQueueCommand({ QueueUrl: outputs.DeadLettersUrl }));
    const cleared = await waitForNotification(of(DLQ_ALARM, 'OK'), raised);
    expect(notifications[cleared]?.body).toMatchObject({ OldStateValue: 'ALARM', NewStateValue: 'OK' });
  });

  it('serves the heartbeat the function emits (EMF) and Lambda’s own metrics, and missing heartbeats breach after the evaluation range', async () => {
    const start = new Date(heartbeatSentAt.getTime() - 60_000);
    const recovered = await waitForNotification(of(HEARTBEAT_ALARM, 'OK'));
    const query = {
      Id: 'beat',
      MetricStat: {
        Metric: {
          Namespace: FIXTURE_NAMESPACE,
          MetricName: 'Heartbeat',
          Dimensions: [{ Name: 'service', Value: 'heartbeat' }],
        },
        Period: 60,
        Stat: 'Sum',
      },
    };
    const { MetricDataResults = [] } = await cloudwatch.send(
      new GetMetricDataCommand({
        MetricDataQueries: [query],
        StartTime: start,
        EndTime: new Date(Date.now() + 60_000),
      }),
    );
    expect(MetricDataResults[0]).toMatchObject({ Id: 'beat', Label: 'Heartbeat', StatusCode: 'Complete' });
    expect(MetricDataResults[0]?.Values?.reduce((sum, value) => sum + value, 0)).toBe(3);
    expect(MetricDataResults[0]?.Timestamps?.[0]).toBeInstanceOf(Date);
    const { Datapoints = [] } = await cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: FIXTURE_NAMESPACE,
        MetricName: 'Heartbeat',
        Dimensions: [{ Name: 'service', Value: 'heartbeat' }],
        StartTime: start,
        EndTime: new Date(Date.now() + 60_000),
        Period: 60,
        Statistics: ['SampleCount', 'Maximum'],
      }),
    );
    expect(Datapoints.map(({ SampleCount, Maximum, Unit }) => ({ SampleCount, Maximum, Unit }))).toEqual([
      { SampleCount: 1, Maximum: 3, Unit: 'Count' },
    ]);
    // Lambda's own metrics of the invocation, per function.
    const invocations = await cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: 'AWS/Lambda',
        MetricName: 'Invocations',
        Dimensions: [{ Name: 'FunctionName', Value: outputs.HeartbeatFunctionName }],
        StartTime: start,
        EndTime: new Date(Date.now() + 60_000),
        Period: 3600,
        Statistics: ['Sum'],
      }),
    );
    expect(invocations.Datapoints?.map(({ Sum }) => Sum)).toEqual([1]);
    // The broken line the function writes each time is named once, not each time.
    expect(logLines.filter((line) => line.includes('Embedded Metric Format line'))).toHaveLength(1);

    const lapsed = await waitForNotification(of(HEARTBEAT_ALARM, 'ALARM'), recovered);
    expect(notifications[lapsed]?.body.NewStateReason).toMatch(/treated as \[Breaching\]/);
  });

  it('records API Gateway’s metrics per API and stage, and a 5xx of the API raises the alarm on 5XXError', async () => {
    const from = new Date(Date.now() - 60_000);
    const base = runtime.target.apiUrl ?? '';
    expect((await fetch(`${base}beat`)).status).toBe(200);
    expect((await fetch(`${base}beat?fail=1`)).status).toBe(502);
    expect((await fetch(`${base}nowhere`)).status).toBe(403);
    const stage = [
      { Name: 'ApiName', Value: FIXTURE_API_NAME },
      { Name: 'Stage', Value: FIXTURE_API_STAGE },
    ];
    const statistics = async (metricName: string, dimensions = stage) => {
      const { Datapoints = [] } = await cloudwatch.send(
        new GetMetricStatisticsCommand({
          Namespace: 'AWS/ApiGateway',
          MetricName: metricName,
          Dimensions: dimensions,
          StartTime: from,
          EndTime: new Date(Date.now() + 60_000),
          Period: 3600,
          Statistics: ['Sum', 'SampleCount'],
        }),
      );
      return Datapoints.map(({ Sum, SampleCount, Unit }) => ({ Sum, SampleCount, Unit }));
    };
    expect(await statistics('Count')).toEqual([{ Sum: 3, SampleCount: 3, Unit: 'Count' }]);
    expect(await statistics('Count', stage.slice(0, 1))).toEqual([{ Sum: 3, SampleCount: 3, Unit: 'Count' }]);
    expect(await statistics('4XXError')).toEqual([{ Sum: 1, SampleCount: 3, Unit: 'Count' }]);
    expect(await statistics('5XXError')).toEqual([{ Sum: 1, SampleCount: 3, Unit: 'Count' }]);
    expect(await statistics('Latency')).toEqual([
      { Sum: expect.any(Number), SampleCount: 3, Unit: 'Milliseconds' },
    ]);
    // Only the two requests that reached the function's integration.
    expect(await statistics('IntegrationLatency')).toEqual([
      { Sum: expect.any(Number), SampleCount: 2, Unit: 'Milliseconds' },
    ]);
    const fired = await waitForNotification(of(SERVER_ERRORS_ALARM, 'ALARM'));
    expect(notifications[fired]?.body.Trigger).toMatchObject({
      MetricName: '5XXError',
      Namespace: 'AWS/ApiGateway',
      Dimensions: expect.arrayContaining([{ value: FIXTURE_API_STAGE, name: 'Stage' }]),
    });
  });

  it('reports a namespace’s figures and its alarms’ states (npm run orders -- metrics: its own stack’s only)', async () => {
    const report = await metricsReport(cloudwatch, {
      namespace: FIXTURE_NAMESPACE,
      metricNames: ['Heartbeat', 'NeverEmitted'],
      minutes: 10,
    });
    const lines = report.split('\n').map((line) => line.replace(/ +/g, ' '));
    expect(lines).toContain('Heartbeat service=heartbeat 3 1');
    expect(lines).toContain('NeverEmitted - - -');
    expect(lines.some((line) => line.startsWith(`${HEARTBEAT_ALARM} ALARM `))).toBe(true);
    // The CLI itself, through the target description, with the app's own metric contract.
    writeTarget(targetFile, runtime.target);
    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'bin/orders.ts', 'metrics', '--target', targetFile],
      {
        cwd: PROJECT_ROOT,
      },
    );
    expect(stdout).toContain(`Metrics of ${METRICS_NAMESPACE}, last 60 min`);
    // Its own stack's alarms only (SchedulerAgentSupervisor-*): the fixture app's are another's.
    expect(stdout).not.toContain(DLQ_ALARM);
    expect(stdout).toContain('No alarms.');
    // The report lists the alarms of one prefix when asked (each CLI passes its stack's).
    const heartbeatOnly = await metricsReport(cloudwatch, {
      namespace: FIXTURE_NAMESPACE,
      metricNames: [],
      alarmNamePrefix: HEARTBEAT_ALARM,
    });
    expect(heartbeatOnly).toContain(HEARTBEAT_ALARM);
    expect(heartbeatOnly).not.toContain(DLQ_ALARM);
  });

  /** A DescribeAlarms request in RPC v2 CBOR, as other SDKs send it, signed with `credentials`. */
  async function cborDescribeAlarms(credentials?: { accessKeyId: string; secretAccessKey: string }) {
    const url = new URL(
      `${runtime.target.endpoints.cloudwatch}/service/GraniteServiceVersion20100801/operation/DescribeAlarms`,
    );
    const body = Buffer.from(cbor.serialize({ AlarmNames: [HEARTBEAT_ALARM] }));
    const headers = { 'content-type': 'application/cbor', 'smithy-protocol': 'rpc-v2-cbor', host: url.host };
    const signed = credentials
      ? await new SignatureV4({
          service: 'monitoring',
          region: runtime.target.region,
          credentials,
          sha256: Sha256,
        }).sign({
          method: 'POST',
          protocol: url.protocol,
          hostname: url.hostname,
          port: Number(url.port),
          path: url.pathname,
          headers,
          body,
        })
      : { headers };
    const sent = Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== 'host'));
    return fetch(url, { method: 'POST', headers: sent, body });
  }

  it('refuses what IAM refuses: no signature, an unknown key, an identity no policy allows', async () => {
    const error = async (response: Response) => ({
      status: response.status,
      code: response.headers.get('x-amzn-query-error'),
      body: cbor.deserialize(new Uint8Array(await response.arrayBuffer())) as Record<string, unknown>,
    });
    expect(await error(await cborDescribeAlarms())).toMatchObject({
      status: 403,
      code: 'MissingAuthenticationToken;Sender',
    });
    expect(
      await error(await cborDescribeAlarms({ accessKeyId: 'nobody', secretAccessKey: 'x' })),
    ).toMatchObject({
      status: 403,
      code: 'InvalidClientTokenId;Sender',
    });
    const reader = runtime.target.identities?.[NO_POLICY_USER];
    if (!reader) throw new Error(`the target lists no ${NO_POLICY_USER}`);
    const denied = await error(await cborDescribeAlarms(reader));
    expect(denied).toMatchObject({ status: 403, code: 'AccessDenied;Sender' });
    expect(denied.body.message).toBe(
      `User: ${reader.userArn} is not authorized to perform: cloudwatch:DescribeAlarms on resource: arn:aws:cloudwatch:${runtime.target.region}:${runtime.target.accountId}:alarm:${HEARTBEAT_ALARM} because no identity-based policy allows the cloudwatch:DescribeAlarms action`,
    );
  });

  it('answers clients that speak RPC v2 CBOR', async () => {
    const response = await cborDescribeAlarms(runtime.target.credentials);
    expect(response.headers.get('smithy-protocol')).toBe('rpc-v2-cbor');
    const answer = cbor.deserialize(new Uint8Array(await response.arrayBuffer())) as {
      MetricAlarms: Array<Record<string, unknown>>;
    };
    expect(answer.MetricAlarms).toHaveLength(1);
    expect(answer.MetricAlarms[0]).toMatchObject({
      AlarmName: HEARTBEAT_ALARM,
      Threshold: 1,
      StateUpdatedTimestamp: { tag: 1, value: expect.any(Number) },
    });
  });

  it('answers the AWS CLI: describe-alarms, set-alarm-state, put-metric-data', async () => {
    const cli = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(
        'aws',
        [
          'cloudwatch',
          ...args,
          '--endpoint-url',
          runtime.target.endpoints.cloudwatch,
          '--region',
          runtime.target.region,
          '--output',
          'json',
        ],
        {
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            AWS_ACCESS_KEY_ID: runtime.target.credentials.accessKeyId,
            AWS_SECRET_ACCESS_KEY: runtime.target.credentials.secretAccessKey,
          },
        },
      );
      return stdout.trim() === '' ? undefined : (JSON.parse(stdout) as Record<string, unknown>);
    };
    const described = await cli('describe-alarms', '--alarm-names', DLQ_ALARM);
    expect(described?.MetricAlarms).toEqual([
      expect.objectContaining({
        AlarmName: DLQ_ALARM,
        Period: 10,
        StateUpdatedTimestamp: expect.any(Number),
      }),
    ]);
    // A set state holds until the alarm's next evaluation (as on AWS), 1 s after each 10 s period
    // ends: set it just after one, so a slow CLI start on a loaded machine cannot straddle the next.
    const untilEvaluation = (11_000 - (Date.now() % 10_000)) % 10_000;
    if (untilEvaluation < 6_000) await delay(untilEvaluation + 500);
    await cli(
      'set-alarm-state',
      '--alarm-name',
      DLQ_ALARM,
      '--state-value',
      'ALARM',
      '--state-reason',
      'drill',
    );
    const { MetricAlarms = [] } = await cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNames: [DLQ_ALARM] }),
    );
    expect(MetricAlarms[0]).toMatchObject({ StateValue: 'ALARM', StateReason: 'drill' });
    await expect(
      cli('set-alarm-state', '--alarm-name', 'nope', '--state-value', 'OK', '--state-reason', 'x'),
    ).rejects.toThrow(/ResourceNotFound/);
    await cli(
      'put-metric-data',
      '--namespace',
      'Cli',
      '--metric-name',
      'Drill',
      '--value',
      '7',
      '--unit',
      'Count',
    );
    await cloudwatch.send(
      new PutMetricDataCommand({
        Namespace: 'Cli',
        MetricData: [{ MetricName: 'Drill', Values: [1, 2], Counts: [1, 3] }],
      }),
    );
    const { Datapoints = [] } = await cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: 'Cli',
        MetricName: 'Drill',
        StartTime: new Date(Date.now() - 60_000),
        EndTime: new Date(Date.now() + 60_000),
        Period: 3600,
        Statistics: ['Sum', 'SampleCount'],
      }),
    );
    expect(Datapoints).toEqual([expect.objectContaining({ Sum: 14, SampleCount: 5 })]);
  });
});
