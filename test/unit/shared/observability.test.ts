/**
 * The shared observability module, with tracing both off (as in the integration tests) and on as in
 * a Lambda execution environment, where a UDP socket plays the X-Ray daemon so the test reads the
 * subsegments the handlers would send.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import type * as ObservabilityModule from '../../../lambdas/shared/observability';

const BASE_ENV = {
  [PowertoolsEnvKey.ServiceName]: 'observability-test',
  [PowertoolsEnvKey.MetricsNamespace]: 'ObservabilityTest',
};
const context = {} as Context;

const savedEnv = { ...process.env };
afterEach(() => {
  process.env = { ...savedEnv };
});

/** The module as a fresh handler module loads it, with `env` as its environment. */
function loadWith(env: Record<string, string | undefined>): typeof ObservabilityModule {
  process.env = { ...savedEnv, ...BASE_ENV };
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  let loaded: typeof ObservabilityModule | undefined;
  jest.isolateModules(() => {
    loaded = require('../../../lambdas/shared/observability');
  });
  if (!loaded) throw new Error('observability module did not load');
  return loaded;
}

/** Tracing off the way a test process has it: not a Lambda execution environment. */
const untraced = { AWS_EXECUTION_ENV: undefined, LAMBDA_TASK_ROOT: undefined };

describe('createObservability', () => {
  it.each([PowertoolsEnvKey.ServiceName, PowertoolsEnvKey.MetricsNamespace])(
    'refuses to run without %s, which the function construct always sets',
    (key) => {
      const { createObservability } = loadWith(untraced);
      expect(() => createObservability({}, { ...BASE_ENV, [key]: undefined })).toThrow(
        `Missing required environment variable ${key}`,
      );
    },
  );

  it('puts metrics in the configured namespace with the service and the default dimensions', () => {
    const { createObservability } = loadWith(untraced);
    const { metrics, count } = createObservability<'Calls' | 'Retries'>({
      defaultDimensions: { step: 'ChargePayment' },
    });
    count('Calls');
    count('Calls', 2);
    count('Retries', 0);
    const emf = metrics.serializeMetrics();
    expect(emf._aws.CloudWatchMetrics[0]?.Namespace).toBe('ObservabilityTest');
    expect(emf._aws.CloudWatchMetrics[0]?.Metrics.map((metric) => metric.Name)).toEqual(['Calls']);
    expect(emf).toMatchObject({ service: 'observability-test', step: 'ChargePayment', Calls: [1, 2] });
    metrics.clearMetrics();
  });
});

describe('with tracing off (not a Lambda execution environment)', () => {
  it('runs handlers and traced work unchanged, errors included, and flushes the metrics', async () => {
    const o = loadWith(untraced);
    const observability = o.createObservability<'Handled'>();
    expect(observability.tracer.isTracingEnabled()).toBe(false);
    const { count } = observability;
    const handler = o.instrumentedHandler(observability, async (event: { fail: boolean }) =>
      o.traced(observability.tracer, 'work', { orderId: 'o-1' }, async () => {
        count('Handled');
        if (event.fail) throw new Error('boom');
        return 'done';
      }),
    );
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await expect(handler({ fail: false }, context)).resolves.toBe('done');
      expect(observability.metrics.hasStoredMetrics()).toBe(false);
      await expect(handler({ fail: true }, context)).rejects.toThrow('boom');
      expect(observability.metrics.hasStoredMetrics()).toBe(false);
      const emitted = stdout.mock.calls
        .map(([chunk]) => String(chunk))
        .filter((line) => line.includes('_aws'));
      expect(emitted).toHaveLength(2);
    } finally {
      stdout.mockRestore();
    }
  });
});

describe('with tracing on (a Lambda execution environment)', () => {
  let daemon: Socket;
  let packets: string[];
  let complaints: jest.SpyInstance[];

  beforeEach(async () => {
    // The Tracer is required when createObservability runs (lambdas/shared/tracing.ts), after
    // loadWith's isolated registry is gone: a fresh one per test, so the X-Ray SDK reads this
    // test's daemon address at load.
    jest.resetModules();
    // The X-Ray SDK and the Tracer complain through the console (context missing, no segment).
    complaints = [jest.spyOn(console, 'warn'), jest.spyOn(console, 'error')];
    packets = [];
    daemon = createSocket('udp4');
    daemon.on('message', (message) => packets.push(message.toString('utf8')));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  });
  afterEach(() => {
    daemon.close();
    for (const spy of complaints) spy.mockRestore();
  });

  function lambdaEnvironment(): Record<string, string | undefined> {
    return {
      [PowertoolsEnvKey.TraceEnabled]: undefined,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      LAMBDA_TASK_ROOT: __dirname,
      _HANDLER: 'index.handler',
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
      _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
    };
  }

  /** The subsegments the daemon received, by name. */
  async function subsegments(count: number): Promise<Record<string, unknown>[]> {
    for (let waited = 0; packets.length < count && waited < 2_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return packets.map((packet) => JSON.parse(packet.split('\n')[1] ?? '{}') as Record<string, unknown>);
  }

  it('sends one handler subsegment and one annotated subsegment per concurrent unit of work', async () => {
    const o = loadWith(lambdaEnvironment());
    const { tracer, metrics } = o.createObservability();
    expect(tracer.isTracingEnabled()).toBe(true);
    const handler = o.instrumentedHandler({ tracer, metrics }, async (orderIds: string[]) => {
      await Promise.all(
        orderIds.map((orderId) =>
          o.traced(tracer, 'record', { orderId }, async () => {
            // Learnt after an await, as a handler learns it after parsing: it must land on this record.
            await new Promise((resolve) => setTimeout(resolve, 5));
            o.annotateTrace(tracer, { correlationId: `corr-${orderId}`, absent: undefined });
          }),
        ),
      );
      return orderIds.length;
    });

    await expect(handler(['o-1', 'o-2'], context)).resolves.toBe(2);

    const sent = await subsegments(3);
    const handlerSegment = sent.find((segment) => segment.name === '## index.handler');
    expect(handlerSegment).toMatchObject({
      parent_id: '53995c3f42cd8ad8',
      annotations: { Service: 'observability-test' },
    });
    const records = sent.filter((segment) => segment.name === '### record');
    expect(records.map((segment) => segment.annotations)).toEqual(
      expect.arrayContaining([
        { orderId: 'o-1', correlationId: 'corr-o-1' },
        { orderId: 'o-2', correlationId: 'corr-o-2' },
      ]),
    );
    for (const record of records) expect(record.parent_id).toBe(handlerSegment?.id);
    for (const spy of complaints) expect(spy).not.toHaveBeenCalled();
  });

  it('records the error of a failed invocation on its subsegment and still throws it', async () => {
    const o = loadWith(lambdaEnvironment());
    const observability = o.createObservability();
    const handler = o.instrumentedHandler(observability, async () => {
      throw new Error('downstream refused');
    });

    await expect(handler({}, context)).rejects.toThrow('downstream refused');

    const [handlerSegment] = await subsegments(1);
    // X-Ray marks an error of the function's own (not a remote call's) as a fault.
    expect(handlerSegment).toMatchObject({
      name: '## index.handler',
      fault: true,
      cause: { exceptions: [expect.objectContaining({ message: 'downstream refused', remote: false })] },
    });
  });
});
