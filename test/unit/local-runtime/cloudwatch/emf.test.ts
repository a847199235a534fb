/**
 * Embedded Metric Format as the runtime reads function output: the specification's directives
 * (namespaces, dimension sets, units, storage resolution, arrays of values, the timestamp), and
 * lines that claim to be EMF but break it rejected whole and counted; ordinary output is ignored.
 */
import { EmfReader, type MetricDatum, parseEmfLine } from '../../../../lib/local-runtime/cloudwatch/emf';
import { MetricStore, statisticOf } from '../../../../lib/local-runtime/cloudwatch/metrics';
import { LineSplitter } from '../../../../lib/local-runtime/lambda/line-splitter';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

const emf = (metadata: Record<string, unknown>, members: Record<string, unknown>) =>
  JSON.stringify({ _aws: { Timestamp: NOW - 5_000, ...metadata }, ...members });

describe('Embedded Metric Format lines', () => {
  it('records each metric once per dimension set, with its unit, resolution and every value of an array', () => {
    const line = emf(
      {
        CloudWatchMetrics: [
          {
            Namespace: 'Orders',
            Dimensions: [['service'], ['service', 'step'], []],
            Metrics: [
              { Name: 'Latency', Unit: 'Milliseconds', StorageResolution: 1 },
              { Name: 'Submitted', Unit: 'Count' },
            ],
          },
        ],
      },
      { service: 'scheduler', step: 'Payment', Latency: [12, 30, 6], Submitted: 1, requestId: 'r-1' },
    );
    const parsed = parseEmfLine(line, NOW);
    expect(parsed.kind).toBe('metrics');
    const data = (parsed as { data: readonly MetricDatum[] }).data;
    expect(data).toHaveLength(6);
    expect(data[0]).toEqual({
      namespace: 'Orders',
      metricName: 'Latency',
      dimensions: { service: 'scheduler' },
      unit: 'Milliseconds',
      storageResolution: 1,
      values: [12, 30, 6],
      timestamp: NOW - 5_000,
    });
    expect(data.map((datum) => [datum.metricName, datum.dimensions])).toEqual([
      ['Latency', { service: 'scheduler' }],
      ['Latency', { service: 'scheduler', step: 'Payment' }],
      ['Latency', {}],
      ['Submitted', { service: 'scheduler' }],
      ['Submitted', { service: 'scheduler', step: 'Payment' }],
      ['Submitted', {}],
    ]);
    expect(data[3]).toMatchObject({ unit: 'Count', storageResolution: 60, values: [1] });
  });

  it('reads several directives of one line, a prefixed line, and stamps a line without a timestamp now', () => {
    const line = JSON.stringify({
      _aws: {
        CloudWatchMetrics: [
          { Namespace: 'A', Dimensions: [[]], Metrics: [{ Name: 'x' }] },
          { Namespace: 'B', Dimensions: [['d']], Metrics: [{ Name: 'x' }] },
        ],
      },
      d: 'one',
      x: 2,
    });
    const parsed = parseEmfLine(`2026-01-01T12:00:00.000Z\tr-1\tINFO\t${line}`, NOW);
    expect(parsed).toEqual({
      kind: 'metrics',
      data: [
        {
          namespace: 'A',
          metricName: 'x',
          dimensions: {},
          unit: 'None',
          storageResolution: 60,
          values: [2],
          timestamp: NOW,
        },
        {
          namespace: 'B',
          metricName: 'x',
          dimensions: { d: 'one' },
          unit: 'None',
          storageResolution: 60,
          values: [2],
          timestamp: NOW,
        },
      ],
    });
  });

  it.each([
    ['not JSON', '{"_aws": {"CloudWatchMetrics": [', 'not valid JSON'],
    ['no CloudWatchMetrics', emf({ CloudWatchMetrics: undefined }, {}), 'CloudWatchMetrics is not an array'],
    [
      'a missing value',
      emf({ CloudWatchMetrics: [{ Namespace: 'A', Dimensions: [[]], Metrics: [{ Name: 'x' }] }] }, {}),
      'metric x has a non-numeric value',
    ],
    [
      'a text value',
      emf(
        { CloudWatchMetrics: [{ Namespace: 'A', Dimensions: [[]], Metrics: [{ Name: 'x' }] }] },
        { x: '3' },
      ),
      'non-numeric',
    ],
    [
      'a dimension without a string value',
      emf(
        { CloudWatchMetrics: [{ Namespace: 'A', Dimensions: [['d']], Metrics: [{ Name: 'x' }] }] },
        { x: 1, d: 4 },
      ),
      'dimension d has no string value',
    ],
    [
      'no namespace',
      emf({ CloudWatchMetrics: [{ Dimensions: [[]], Metrics: [{ Name: 'x' }] }] }, { x: 1 }),
      'no Namespace',
    ],
    [
      'a bad resolution',
      emf(
        {
          CloudWatchMetrics: [
            { Namespace: 'A', Dimensions: [[]], Metrics: [{ Name: 'x', StorageResolution: 5 }] },
          ],
        },
        { x: 1 },
      ),
      'StorageResolution',
    ],
    [
      'too many values',
      emf(
        { CloudWatchMetrics: [{ Namespace: 'A', Dimensions: [[]], Metrics: [{ Name: 'x' }] }] },
        { x: Array(101).fill(1) },
      ),
      'more than 100',
    ],
    ['a bad timestamp', emf({ Timestamp: 'soon', CloudWatchMetrics: [] }, {}), 'Timestamp'],
  ])('rejects a line with %s', (_case, line, reason) => {
    const parsed = parseEmfLine(line, NOW);
    expect(parsed.kind).toBe('rejected');
    expect((parsed as { reason: string }).reason).toContain(reason);
  });

  it('ignores ordinary output, counts rejected lines, and sums what it recorded per period', () => {
    const store = new MetricStore({ clock: () => NOW });
    const reader = new EmfReader();
    const good = emf(
      {
        CloudWatchMetrics: [{ Namespace: 'A', Dimensions: [['d']], Metrics: [{ Name: 'x', Unit: 'Count' }] }],
      },
      { d: 'one', x: [1, 4] },
    );
    const lines = [
      'START RequestId: r-1',
      '{"level":"INFO","message":"hello"}',
      good,
      good,
      '{"_aws": 1}',
      '{"_aws": broken',
    ];
    const reasons = lines.map((line) => reader.read(line, store, NOW));
    expect(reasons.filter((reason) => reason !== undefined)).toHaveLength(2);
    expect(reader.counts()).toEqual({ documents: 2, rejected: 2 });
    const [period] = store.aggregates(
      { namespace: 'A', metricName: 'x', dimensions: { d: 'one' } },
      { start: NOW - 60_000, end: NOW + 60_000, periodSeconds: 60 },
    );
    expect(period?.aggregate).toEqual({ sum: 10, count: 4, min: 1, max: 4 });
    expect(period && statisticOf(period.aggregate, 'Average')).toBe(2.5);
    expect(period?.unit).toBe('Count');
    // A metric is its full dimension set: a query naming fewer dimensions finds nothing.
    expect(
      store.aggregates(
        { namespace: 'A', metricName: 'x', dimensions: {} },
        { start: 0, end: NOW * 2, periodSeconds: 60 },
      ),
    ).toEqual([]);
  });

  it('splits chunks into whole lines, across chunk boundaries', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), 10);
    for (const chunk of ['ab', 'c\nde', 'f\n', 'x'.repeat(12), 'y\nok\n']) splitter.write(chunk);
    expect(lines).toEqual(['abc', 'def', 'ok']);
  });
});

describe('metric store', () => {
  it('aggregates per period aligned to the clock, keeps units apart on request, and forgets old values', () => {
    let now = NOW;
    const store = new MetricStore({ clock: () => now, retentionMillis: 60 * 60_000 });
    const metric = { namespace: 'A', metricName: 'x', dimensions: {} };
    const put = (offsetMillis: number, value: number, unit = 'Count') =>
      store.put({ ...metric, unit, storageResolution: 60, values: [value], timestamp: NOW + offsetMillis });
    put(1_000, 1);
    put(9_999, 2);
    put(10_000, 5);
    put(10_500, 7, 'Seconds');
    const query = { start: NOW, end: NOW + 20_000, periodSeconds: 10 };
    expect(
      store.aggregates(metric, query).map(({ timestamp, aggregate }) => [timestamp - NOW, aggregate.sum]),
    ).toEqual([
      [0, 3],
      [10_000, 12],
    ]);
    expect(
      store.aggregates(metric, { ...query, unit: 'Count' }).map(({ aggregate }) => aggregate.sum),
    ).toEqual([3, 5]);
    now = NOW + 2 * 60 * 60_000;
    put(now - NOW, 1);
    expect(store.aggregates(metric, query)).toEqual([]);
  });
});
