/**
 * CloudWatch: the metrics the functions emit (Embedded Metric Format lines in their output, read as
 * they are written), the AWS metrics the services publish (AWS/SQS queue metrics sampled from the
 * runtime's SQS service, AWS/Lambda per invocation and per stream batch, AWS/ApiGateway per answer of
 * a stage: ../cloudwatch/service-metrics.ts), and PutMetricData;
 * single-metric alarms (AWS::CloudWatch::Alarm) evaluated each period, whose state changes publish
 * CloudWatch's notification to their SNS actions; and the CloudWatch API (../cloudwatch/server.ts),
 * announced as AWS_ENDPOINT_URL_CLOUDWATCH. See ../cloudwatch/README.md.
 */
import {
  COMPARISON_OPERATORS,
  type ComparisonOperator,
  TREAT_MISSING_DATA,
  type TreatMissingData,
} from '../cloudwatch/alarm-evaluation';
import { ALARM_SETTLE_MILLIS, type AlarmDefinition, LocalAlarms } from '../cloudwatch/alarms';
import { cloudWatchOperations } from '../cloudwatch/api';
import { EmfReader } from '../cloudwatch/emf';
import { cloudWatchChecks } from '../cloudwatch/iam-requests';
import { isStatistic, MetricStore } from '../cloudwatch/metrics';
import { CloudWatchError, startCloudWatchServer } from '../cloudwatch/server';
import {
  isProducedLocally,
  recordApiResponse,
  recordInvocation,
  recordIteratorAge,
  recordQueueFigures,
} from '../cloudwatch/service-metrics';
import { type SigV4Refusal, verifySigV4 } from '../iam/identities';
import { CLOUDWATCH_ALARM_DELIVERY } from '../metering';
import type { ListenContext, Provisioner, RuntimeContext, StackContext } from '../provisioning';
import type { ApiGatewayProvisioner } from './api-gateway';
import type { LambdaProvisioner } from './lambda';
import type { SqsProvisioner } from './sqs';
import { asNumber, asRecord, asString } from './values';

/**
 * CloudWatch's answers to a request it cannot authenticate: shape (= Query code) and HTTP status
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/CommonErrors.html).
 */
const AUTHENTICATION_ERRORS: Readonly<Record<SigV4Refusal, readonly [string, number]>> = {
  missing: ['MissingAuthenticationToken', 403],
  unknown: ['InvalidClientTokenId', 403],
  token: ['InvalidClientTokenId', 403],
  mismatch: ['SignatureDoesNotMatch', 403],
  scope: ['SignatureDoesNotMatch', 403],
  expired: ['RequestExpired', 400],
};

const ALARM = 'AWS::CloudWatch::Alarm';

/** How often the AWS/SQS metrics are sampled (often enough for the shortest alarm period, 10 s). */
export const SQS_SAMPLE_MILLIS = 5_000;

/**
 * Until the next sample: samples are taken at the instants the alarms are evaluated (a period's end
 * plus ALARM_SETTLE_MILLIS, periods aligned to the clock), so on a virtual clock an idle system makes
 * one jump for an evaluation and its sample, not two (with 10 s periods every other sample shares
 * one; measured idle, the clock went 3% further in the same wall time).
 */
export function untilNextSample(now: number): number {
  const sinceLast =
    (((now - ALARM_SETTLE_MILLIS) % SQS_SAMPLE_MILLIS) + SQS_SAMPLE_MILLIS) % SQS_SAMPLE_MILLIS;
  return SQS_SAMPLE_MILLIS - sinceLast;
}

export class CloudWatchProvisioner implements Provisioner {
  readonly name = 'CloudWatch';
  readonly resourceTypes = {
    runs: [ALARM],
    inert: {
      // Every metric a dashboard draws is served by GetMetricData; the drawing itself is the console's.
      'AWS::CloudWatch::Dashboard':
        'dashboards are drawn by the console (their metrics are served by GetMetricData)',
    },
    notRun: {
      'AWS::CloudWatch::CompositeAlarm': 'composite alarms are not evaluated locally',
      'AWS::CloudWatch::AnomalyDetector': 'anomaly detection is not run locally',
      'AWS::CloudWatch::InsightRule': 'Contributor Insights rules are not run locally',
      'AWS::CloudWatch::MetricStream': 'metric streams are not run locally',
    },
  };
  private metrics: MetricStore | undefined;
  private localAlarms: LocalAlarms | undefined;
  private readonly emf = new EmfReader();
  /** Each stack's alarms, by logical id (their actions are checked once every topic exists). */
  private readonly alarmsByStack = new Map<string, Array<readonly [string, AlarmDefinition]>>();

  constructor(
    private readonly lambda: LambdaProvisioner,
    private readonly sqs: SqsProvisioner,
    private readonly apiGateway: ApiGatewayProvisioner,
  ) {}

  private get alarms(): LocalAlarms {
    if (!this.localAlarms) throw new Error('CloudWatch is not started yet');
    return this.localAlarms;
  }

  /** The metric store (for tests and tools in-process). */
  get store(): MetricStore {
    if (!this.metrics) throw new Error('CloudWatch is not started yet');
    return this.metrics;
  }

  async listen(context: ListenContext): Promise<void> {
    const store = new MetricStore({ clock: () => context.clock.now() });
    this.metrics = store;
    this.localAlarms = new LocalAlarms({
      store,
      clock: context.clock,
      region: context.region,
      accountId: context.accountId,
      // As CloudWatch for the alarm: the topic's policy and key policy must let it publish.
      act: ({ actionArn, alarmArn, subject, message }) =>
        context.deliveries.deliver(actionArn, message, {
          subject,
          deliveredBy: CLOUDWATCH_ALARM_DELIVERY,
          deliveredAs: { kind: 'service', service: 'cloudwatch.amazonaws.com', sourceArn: alarmArn },
        }),
      onProblem: (message) => context.problem(`CloudWatch ${message}`),
    });
    const reportedRejections = new Set<string>();
    this.lambda.onOutputLine((spec, line) => {
      const rejected = this.emf.read(line, store, store.now());
      // Counted every time, told once per function: a broken emitter repeats itself.
      if (rejected && !reportedRejections.has(spec.functionName)) {
        reportedRejections.add(spec.functionName);
        context.problem(
          `function ${spec.logicalId} wrote an Embedded Metric Format line CloudWatch would not ` +
            `extract metrics from (${rejected}); further ones are counted, not shown`,
        );
      }
    });
    const now = () => context.clock.now();
    this.lambda.onInvocationEnd((spec, result, durationMillis) =>
      recordInvocation(store, now(), spec.functionName, result.ok, durationMillis),
    );
    this.lambda.onIteratorAge((functionName, ageMillis) =>
      recordIteratorAge(store, now(), functionName, ageMillis),
    );
    this.apiGateway.onResponse((api, figures) =>
      recordApiResponse(store, now(), api.apiName ?? api.apiId, figures),
    );
    const scope = { region: context.region, accountId: context.accountId };
    const server = await startCloudWatchServer(cloudWatchOperations(store, this.localAlarms), {
      clock: context.clock,
      authorize: async (operationName, input, request) => {
        const signed = await verifySigV4(request, context.iam.credentials, {
          region: context.region,
          service: 'monitoring',
        });
        if (!signed.ok) {
          const [shape, status] = AUTHENTICATION_ERRORS[signed.reason];
          throw new CloudWatchError(shape, shape, signed.message, status);
        }
        const { principal } = signed.identity;
        const verdict = context.iam.authorizer.authorizeAll(
          cloudWatchChecks(operationName, input, scope).map((check) => ({ principal, ...check })),
        );
        // Users' CLI output shows `(AccessDenied) when calling the PutMetricData operation: User: ...
        // is not authorized`; the common errors page lists AccessDeniedException, HTTP 400
        // (https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/CommonErrors.html): the
        // Query code and 403 of the former are answered.
        if (!verdict.allowed) throw new CloudWatchError('AccessDenied', 'AccessDenied', verdict.message, 403);
      },
      onInternalError: (error) => context.problem(`CloudWatch API: ${(error as Error).message}`),
    });
    context.stopWith(server, 'backend');
    context.endpoints.announce('CLOUDWATCH', server.endpoint);
  }

  async provision(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(ALARM)) {
      const definition = alarmDefinition(context, logicalId);
      if (typeof definition === 'string') {
        context.named(logicalId, ALARM, `not evaluated: ${definition}`);
        continue;
      }
      const { namespace, metricName } = definition.metric;
      if (!isProducedLocally(namespace, metricName)) {
        context.named(
          logicalId,
          ALARM,
          `metric ${namespace} ${metricName} is not produced locally: the alarm only ever sees missing data`,
        );
      }
      this.alarms.add(definition);
      const ofStack = this.alarmsByStack.get(context.stack.stackName) ?? [];
      ofStack.push([logicalId, definition]);
      this.alarmsByStack.set(context.stack.stackName, ofStack);
    }
  }

  async wire(context: StackContext): Promise<void> {
    for (const [logicalId, definition] of this.alarmsByStack.get(context.stack.stackName) ?? []) {
      for (const action of [
        ...definition.alarmActions,
        ...definition.okActions,
        ...definition.insufficientDataActions,
      ]) {
        if (!action.startsWith('arn:aws:sns:') || !context.deliveries.canDeliver(action)) {
          context.named(logicalId, ALARM, `action ${action} is not run locally (only SNS topic actions are)`);
        }
      }
    }
  }

  async start(context: RuntimeContext): Promise<void> {
    const store = this.store;
    const sample = () => {
      const now = context.clock.now();
      for (const figures of this.sqs.queueFigures(now)) {
        if (figures.accountId === context.accountId) recordQueueFigures(store, now, figures);
      }
    };
    sample();
    const clock = context.clock;
    let sampler = clock.setTimer(function tick() {
      sample();
      sampler = clock.setTimer(tick, untilNextSample(clock.now()));
    }, untilNextSample(clock.now()));
    const alarms = this.alarms;
    alarms.start();
    context.stopWith(
      {
        stop: async () => {
          sampler.cancel();
          await alarms.stop();
        },
      },
      'producer',
    );
    const count = alarms.list().length;
    if (count > 0) context.log(`CloudWatch: ${count} alarm${count === 1 ? '' : 's'} evaluated each period`);
  }

  /** What the EMF reader has seen: lines with metrics, values recorded, lines rejected. */
  emfCounts(): { readonly documents: number; readonly rejected: number } {
    return this.emf.counts();
  }
}

const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** The alarm as the runtime evaluates it, or why it is not evaluated. */
function alarmDefinition(context: StackContext, logicalId: string): AlarmDefinition | string {
  const { resolver } = context;
  const properties = resolver.properties(logicalId);
  if (properties.ThresholdMetricId !== undefined) return 'anomaly detection bands are not evaluated locally';
  if (properties.EvaluationCriteria !== undefined)
    return 'PromQL evaluation criteria are not evaluated locally';
  let stat: Record<string, unknown>;
  if (properties.Metrics !== undefined) {
    const queries = Array.isArray(properties.Metrics) ? properties.Metrics.map(asRecord) : [];
    const only = queries.length === 1 ? queries[0] : undefined;
    if (!only?.MetricStat || only.Expression !== undefined)
      return 'metric math alarms are not evaluated locally';
    const metricStat = asRecord(only.MetricStat);
    const metric = asRecord(metricStat.Metric);
    stat = {
      Namespace: metric.Namespace,
      MetricName: metric.MetricName,
      Dimensions: metric.Dimensions,
      Period: metricStat.Period,
      Statistic: metricStat.Stat,
      Unit: metricStat.Unit,
    };
  } else {
    stat = properties;
  }
  if (
    properties.ExtendedStatistic !== undefined ||
    (stat.Statistic !== undefined && !isStatistic(stat.Statistic))
  ) {
    return `statistic ${String(properties.ExtendedStatistic ?? stat.Statistic)} (percentiles) is not evaluated locally`;
  }
  const namespace = asString(stat.Namespace);
  const metricName = asString(stat.MetricName);
  if (!namespace || !metricName || !isStatistic(stat.Statistic))
    return 'no Namespace, MetricName or Statistic';
  const comparisonOperator = String(properties.ComparisonOperator);
  if (!COMPARISON_OPERATORS.includes(comparisonOperator as ComparisonOperator)) {
    return `comparison ${comparisonOperator} (anomaly detection) is not evaluated locally`;
  }
  const periodSeconds = asNumber(stat.Period) ?? 0;
  if (!(periodSeconds >= 60 ? periodSeconds % 60 === 0 : [10, 30].includes(periodSeconds))) {
    return `Period ${periodSeconds} is not 10, 30 or a multiple of 60 seconds`;
  }
  const evaluationPeriods = asNumber(properties.EvaluationPeriods) ?? 0;
  const datapointsToAlarm = asNumber(properties.DatapointsToAlarm) ?? evaluationPeriods;
  const threshold = asNumber(properties.Threshold);
  if (
    evaluationPeriods < 1 ||
    datapointsToAlarm < 1 ||
    datapointsToAlarm > evaluationPeriods ||
    threshold === undefined
  ) {
    return 'EvaluationPeriods, DatapointsToAlarm or Threshold is missing or out of range';
  }
  const treatMissingData = (asString(properties.TreatMissingData) ?? 'missing') as TreatMissingData;
  if (!TREAT_MISSING_DATA.includes(treatMissingData))
    return `TreatMissingData ${treatMissingData} is unknown`;
  const dimensions: Record<string, string> = {};
  for (const entry of Array.isArray(stat.Dimensions) ? stat.Dimensions.map(asRecord) : []) {
    dimensions[String(entry.Name)] = String(entry.Value);
  }
  const unit = asString(stat.Unit);
  const description = asString(properties.AlarmDescription);
  return {
    alarmName: resolver.physicalName(logicalId),
    alarmArn: String(resolver.context.getAtt(logicalId, 'Arn')),
    ...(description === undefined ? {} : { alarmDescription: description }),
    metric: { namespace, metricName, dimensions },
    statistic: stat.Statistic,
    ...(unit === undefined ? {} : { unit }),
    periodSeconds,
    evaluationPeriods,
    datapointsToAlarm,
    threshold,
    comparisonOperator: comparisonOperator as ComparisonOperator,
    treatMissingData,
    actionsEnabled: properties.ActionsEnabled !== false && properties.ActionsEnabled !== 'false',
    alarmActions: list(properties.AlarmActions),
    okActions: list(properties.OKActions),
    insufficientDataActions: list(properties.InsufficientDataActions),
  };
}
