/**
 * Drone delivery's alarms on the metrics AWS services publish (lib/choreography/operations.ts),
 * firing end to end on the local runtime: the real app's assembly as `npm start` runs it, each
 * failure injected at the infrastructure boundary (the runtime's awsApi fault hook, as the chaos
 * campaign injects its faults; the handlers run unmodified), the alarms' notifications read from the
 * alert inbox over the SDK, as an operator's mail would come.
 *
 * - DeliveryApi5xx: DynamoDB answers the submit function's calls for one delivery with
 *   InternalServerError; the function answers 500, API Gateway counts a 5XXError of the stage.
 * - OutboxLagIngestion: the requests topic holds each of the ingestion relay's publishes of this
 *   test's deliveries and then fails it, so each invocation lasts most of the relay's timeout and its
 *   batch is retried until given up; the batches behind it wait in the stream, and the IteratorAge
 *   Lambda publishes per batch climbs past the alarm's threshold for its evaluation periods.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import {
  DELIVERY_API_5XX_ALARM,
  RELAY_ITERATOR_AGE_ALARM,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { AlarmNotificationField, AlarmState } from '../../../lambdas/shared/alarm-spec';
import { SDK_MAX_ATTEMPTS } from '../../../lambdas/shared/aws-clients/options';
import { CHOREOGRAPHY_PROFILES } from '../../../lib/choreography/config';
import {
  type InterceptedReply,
  type InterceptedRequest,
  type LocalRuntime,
  type RuntimeClock,
  startLocalRuntime,
  synthesizeLocalAssembly,
} from '../../../lib/local-runtime';
import { DeliverySystemClient } from '../../acceptance/choreography/system-client';
import { awsClientConfig, takeMatching } from '../../acceptance/client-support';
import { DELIVERIES_APP, parseTargetDescription, type TargetDescription } from '../../acceptance/target';
import { testClock, testTimingsContext } from '../../support/test-clock';

jest.setTimeout(300_000);

const runId = randomUUID().slice(0, 8);
/** The delivery whose submission DynamoDB fails. */
const FAILING_SUBMISSION = `alarm-5xx-${runId}`;
/** The deliveries whose change log the ingestion relay cannot publish. */
const LAGGING_PREFIX = `alarm-lag-${runId}-`;

const RELAY = CHOREOGRAPHY_PROFILES.local.relay;
/**
 * How long each publish of a lagging delivery is held before it fails: the SDK's attempts of one
 * publish together take 60% of the relay's timeout, so an invocation ends by itself (a failed publish,
 * the record reported as its batch item failure) rather than by the timeout.
 */
const PUBLISH_HOLD_MILLIS = Math.floor((RELAY.timeoutSeconds * 1000 * 0.6) / SDK_MAX_ATTEMPTS);
/**
 * Three batches: the first is retried until given up (RELAY.retryAttempts + 1 invocations of most
 * of the timeout each), the ones behind it are sent past the threshold, each retried as long.
 */
const LAGGING_DELIVERIES = RELAY.batchSize * 3;

const delivery = (deliveryId: string) => ({
  deliveryId,
  ownerId: 'owner-alarms',
  pickup: { lat: 47.6062, lon: -122.3321 },
  dropoff: { lat: 47.6205, lon: -122.3493 },
  packages: [{ packageId: 'parcel-1', weightGrams: 1200, size: 'SMALL' }],
});

describe('drone delivery alarms on AWS service metrics, on the local runtime', () => {
  let workDir: string;
  let runtime: LocalRuntime;
  let target: TargetDescription;
  let system: DeliverySystemClient;
  let sqs: SQSClient;
  let clock: RuntimeClock;

  async function dynamodb(request: InterceptedRequest, forward: () => Promise<InterceptedReply>) {
    if (!request.body.includes(FAILING_SUBMISSION)) return forward();
    return {
      status: 500,
      headers: { 'content-type': 'application/x-amz-json-1.0' },
      body: JSON.stringify({
        __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
        message: 'injected',
      }),
    };
  }

  async function sns(request: InterceptedRequest, forward: () => Promise<InterceptedReply>) {
    const form = new URLSearchParams(request.body);
    if (form.get('Action') !== 'Publish' || !(form.get('Message') ?? '').includes(LAGGING_PREFIX)) {
      return forward();
    }
    await clock.sleep(PUBLISH_HOLD_MILLIS);
    return {
      status: 500,
      headers: { 'content-type': 'text/xml' },
      body: '<ErrorResponse><Error><Type>Receiver</Type><Code>InternalError</Code><Message>injected</Message></Error><RequestId>injected</RequestId></ErrorResponse>',
    };
  }

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'delivery-alarms-it-'));
    const assemblyDir = join(workDir, 'cdk.out');
    synthesizeLocalAssembly(assemblyDir, { context: testTimingsContext() });
    clock = testClock();
    runtime = await startLocalRuntime({
      assemblyDir,
      port: 0,
      targetFile: null,
      log: () => undefined,
      clock,
      faults: { awsApi: { dynamodb, sns } },
    });
    target = parseTargetDescription(runtime.target, { kind: 'local' }, DELIVERIES_APP);
    system = new DeliverySystemClient(target);
    sqs = new SQSClient(awsClientConfig(target, 'sqs'));
  });

  afterAll(async () => {
    system?.close();
    sqs?.destroy();
    await runtime?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  /**
   * Reads the alert inbox until the alarm's ALARM notification comes; that notification. Given up
   * after the relay's maximum record age on the runtime's clock (its records are given up by then
   * too), or 4 minutes of the machine's.
   */
  async function alarmFires(alarmName: string, seen: Record<string, unknown>[] = []) {
    const deadline = {
      runtime: clock.now() + RELAY.maxRecordAgeSeconds * 1000,
      machine: Date.now() + 240_000,
    };
    while (clock.now() < deadline.runtime && Date.now() < deadline.machine) {
      const bodies = await takeMatching(
        sqs,
        target,
        system.output('AlertInboxQueueUrl'),
        (body) =>
          (JSON.parse(body) as Record<string, unknown>)[AlarmNotificationField.AlarmName] === alarmName,
      );
      seen.push(...bodies.map((body) => JSON.parse(body) as Record<string, unknown>));
      const fired = seen.find(
        (message) => message[AlarmNotificationField.NewStateValue] === AlarmState.Alarm,
      );
      if (fired) return fired;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(`${alarmName} never fired; notifications: ${JSON.stringify(seen)}`);
  }

  it('a submission the table fails answers 500 and fires DeliveryApi5xx', async () => {
    const answer = await system.submit(delivery(FAILING_SUBMISSION));
    expect(answer.status).toBe(500);
    const fired = await alarmFires(`${DELIVERIES_APP.stackName}-${DELIVERY_API_5XX_ALARM.name}`);
    expect(fired).toMatchObject({
      Trigger: expect.objectContaining({ MetricName: '5XXError', Namespace: 'AWS/ApiGateway' }),
    });
  });

  it('a relay that cannot publish falls behind its stream and fires its OutboxLag alarm', async () => {
    const answers = await Promise.all(
      Array.from({ length: LAGGING_DELIVERIES }, (_, index) =>
        system.submit(delivery(`${LAGGING_PREFIX}${index}`)),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 202));
    const suffix = ServiceName.Ingestion.charAt(0).toUpperCase() + ServiceName.Ingestion.slice(1);
    const fired = await alarmFires(`${DELIVERIES_APP.stackName}-${RELAY_ITERATOR_AGE_ALARM.name}${suffix}`);
    expect(fired).toMatchObject({
      Trigger: expect.objectContaining({ MetricName: 'IteratorAge', Namespace: 'AWS/Lambda' }),
    });
  });
});
