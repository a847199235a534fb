import { formatList, formatTrail, parseDeliveriesArguments, sampleDelivery } from '../../../bin/deliveries';
import { DELIVERY_LIST_MAX, SubmitDeliveryRequestSchema } from '../../../lambdas/choreography/contracts';
import {
  buildTrail,
  type DeliveryItems,
  deliveryDetailOf,
  deliveryRowsOf,
} from '../../../lambdas/choreography/domain/trail';

describe('npm run deliveries arguments', () => {
  it.each([
    [['submit', 'd.json'], { command: 'submit', file: 'd.json', sample: false }],
    [['submit', '--sample'], { command: 'submit', sample: true }],
    [['show', 'd-1'], { command: 'show', deliveryId: 'd-1', json: false }],
    [
      ['show', 'd-1', '--json', '--target', 't.json'],
      { command: 'show', deliveryId: 'd-1', json: true, target: 't.json' },
    ],
    [['list'], { command: 'list' }],
    [['--status', 'Failed', 'list'], { command: 'list', status: 'Failed' }],
    [['metrics'], { command: 'metrics', minutes: 60, aws: false }],
    [['metrics', '--minutes', '15', '--aws'], { command: 'metrics', minutes: 15, aws: true }],
    [['metrics', '--target', 't.json'], { command: 'metrics', minutes: 60, aws: false, target: 't.json' }],
  ])('%j', (argv, expected) => {
    expect(parseDeliveriesArguments(argv)).toEqual(expected);
  });

  it.each([
    [[], /Usage/],
    [['submit'], /FILE or --sample/],
    [['submit', 'd.json', '--sample'], /FILE or --sample/],
    [['show'], /needs a delivery id/],
    [['show', 'a', 'b'], /Unexpected arguments: b/],
    [['list', '--status', 'Lost'], /--status must be one of Requested, Correlating, .*; got 'Lost'/],
    [['list', '--status'], /--status needs a value/],
    [['list', '--json'], /list does not take --json/],
    [['show', 'd-1', '--status', 'Failed'], /show does not take --status/],
    [['list', '--verbose'], /Unknown option --verbose/],
    [['delete', 'd-1'], /Usage/],
    [['metrics', '--minutes', '0'], /--minutes must be a whole number of minutes >= 1; got '0'/],
    [['metrics', '--minutes', '1.5'], /--minutes must be a whole number/],
    [['metrics', 'now'], /metrics takes no operand/],
    [['metrics', '--json'], /metrics does not take --json/],
    [['list', '--aws'], /list does not take --aws/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseDeliveriesArguments(argv)).toThrow(message);
  });
});

describe('the sample delivery', () => {
  it('is a valid request with a fresh id', () => {
    const sample = sampleDelivery();
    expect(SubmitDeliveryRequestSchema.safeParse(sample).success).toBe(true);
    expect(sampleDelivery().deliveryId).not.toBe(sample.deliveryId);
  });
});

const envelope = (
  producer: string,
  type: string,
  sequence: number,
  occurredAt: string,
  data: Record<string, unknown> = {},
  correlationId = 'corr-1',
) => ({
  id: `${producer}:d-1:${sequence}`,
  destination: producer === 'delivery' ? 'delivery-bus' : 'requests-topic',
  message: {
    type,
    schemaVersion: 1,
    eventId: `${producer}:d-1:${sequence}`,
    deliveryId: 'd-1',
    correlationId,
    sequence,
    producer,
    occurredAt,
    data,
  },
});

const items: DeliveryItems = {
  ingestion: {
    pk: 'DELIVERY#d-1',
    status: 'Cancelled',
    correlationId: 'corr-1',
    outbox: [envelope('ingestion', 'DeliveryRequested', 1, '2026-01-01T10:00:00.000Z')],
  },
  package: {
    outbox: [
      envelope('package', 'PackageRejected', 1, '2026-01-01T10:00:01.000Z', {
        reasonCode: 'PACKAGE_TOO_HEAVY',
        detail: 'x',
      }),
    ],
  },
  droneScheduler: {
    outbox: [
      envelope('drone-scheduler', 'DroneScheduled', 1, '2026-01-01T10:00:01.000Z', {
        droneId: 'drone-1',
        attempt: 1,
        window: { start: '2026-01-01T10:01:00.000Z', end: '2026-01-01T10:11:00.000Z' },
      }),
      envelope('drone-scheduler', 'DroneReleased', 2, '2026-01-01T10:00:03.000Z', {
        droneId: 'drone-1',
        reasonCode: 'PACKAGE_TOO_HEAVY',
      }),
    ],
  },
  delivery: {
    outbox: [
      envelope(
        'delivery',
        'DeliveryCancelled',
        1,
        '2026-01-01T10:00:03.000Z',
        { reasonCode: 'PACKAGE_TOO_HEAVY' },
        'corr-other',
      ),
    ],
  },
  remediation: {
    decisions: [
      {
        deadLetterKey: 'k',
        decision: 'COMPENSATE',
        reasonCode: 'PACKAGE_TOO_HEAVY',
        source: 'package',
        occurrence: 1,
        decidedAt: '2026-01-01T10:00:02.000Z',
      },
    ],
    outbox: [
      envelope('remediation', 'RemediationDecided', 1, '2026-01-01T10:00:02.000Z', {
        decision: 'COMPENSATE',
        reasonCode: 'PACKAGE_TOO_HEAVY',
        source: 'package',
        occurrence: 1,
      }),
      {
        id: 'alert-1',
        destination: 'alert-bus',
        message: {
          alertId: 'alert-1',
          deliveryId: 'd-1',
          correlationId: 'corr-1',
          reasonCode: 'PACKAGE_TOO_HEAVY',
          decision: 'GIVE_UP',
          source: 'package',
          detail: 'look',
          raisedAt: '2026-01-01T10:00:02.000Z',
        },
      },
    ],
  },
};

describe('the trail of a delivery', () => {
  it('holds every change log entry, decision and dead letter, sorted by time then by service', () => {
    const trail = buildTrail(items);
    expect(trail.map((entry) => [entry.service, entry.kind, entry.what])).toEqual([
      ['ingestion', 'event', 'DeliveryRequested'],
      ['package', 'event', 'PackageRejected'],
      ['drone-scheduler', 'event', 'DroneScheduled'],
      ['remediation', 'dead-letter', 'PACKAGE_TOO_HEAVY'],
      ['remediation', 'event', 'RemediationDecided'],
      ['remediation', 'alert', 'DeliveryNeedsOperator'],
      ['drone-scheduler', 'event', 'DroneReleased'],
      ['delivery', 'event', 'DeliveryCancelled'],
    ]);
    expect(trail[3]).toMatchObject({
      detail: 'from package (occurrence 1): decided COMPENSATE',
      source: 'package',
      decision: 'COMPENSATE',
    });
    expect(trail[2]?.detail).toBe(
      'droneId=drone-1 attempt=1 window=2026-01-01T10:01:00.000Z..2026-01-01T10:11:00.000Z',
    );
    expect(trail[2]?.correlationId).toBe('corr-1');
  });

  it('is printed under a header with the status and correlation id, naming a differing correlation id', () => {
    const detail = deliveryDetailOf('d-1', items);
    if (!detail) throw new Error('d-1 is known to the services');
    const lines = formatTrail(detail).split('\n');
    expect(lines[0]).toBe('Delivery d-1  status Cancelled  correlation corr-1');
    expect(lines[1]).toMatch(/^TIME\s+SERVICE\s+KIND\s+WHAT\s+SEQ\s+TO\s+DETAIL$/);
    expect(lines[2]).toMatch(
      /^2026-01-01T10:00:00.000Z\s+ingestion\s+event\s+DeliveryRequested\s+1\s+requests-topic$/,
    );
    expect(lines.at(-1)).toContain('reasonCode=PACKAGE_TOO_HEAVY [correlation corr-other]');
    expect(lines).toHaveLength(10);
  });

  it('says so when no service logged anything', () => {
    expect(formatTrail({ deliveryId: 'd-2', trail: [] })).toBe(
      'Delivery d-2  status ?  correlation ?\n(no change log entries)',
    );
  });
});

describe('the list of deliveries', () => {
  const rows = [
    {
      pk: 'DELIVERY#b',
      status: 'Failed',
      correlationId: 'c-b',
      acceptedAt: '2026-01-01T10:00:02Z',
      updatedAt: 'u',
    },
    {
      pk: 'DELIVERY#a',
      status: 'Delivered',
      correlationId: 'c-a',
      acceptedAt: '2026-01-01T10:00:01Z',
      updatedAt: 'u',
    },
    { pk: 'MSG#x' },
  ];

  // The operator route answers deliveryRowsOf's rows (newest first, of the status); the CLI prints them.
  const listed = (status?: string) => formatList(deliveryRowsOf(rows, status), status);

  it('lists deliveries oldest first, without the other items of the table', () => {
    expect(listed().split('\n')).toEqual([
      'DELIVERY  STATUS     CORRELATION  ACCEPTED              UPDATED',
      'a         Delivered  c-a          2026-01-01T10:00:01Z  u',
      'b         Failed     c-b          2026-01-01T10:00:02Z  u',
      '2 deliveries',
    ]);
  });

  it('filters by status', () => {
    expect(listed('Failed').split('\n').slice(1)).toEqual([
      'b         Failed  c-b          2026-01-01T10:00:02Z  u',
      '1 delivery',
    ]);
    expect(listed('Cancelled')).toBe('No deliveries in status Cancelled.');
  });

  it('are the console rows newest first, filtered by status, without the other items', () => {
    expect(deliveryRowsOf(rows).map((row) => row.deliveryId)).toEqual(['b', 'a']);
    expect(deliveryRowsOf(rows, 'Delivered')).toEqual([
      {
        deliveryId: 'a',
        status: 'Delivered',
        correlationId: 'c-a',
        acceptedAt: '2026-01-01T10:00:01Z',
        updatedAt: 'u',
      },
    ]);
  });

  it('holds at most DELIVERY_LIST_MAX rows', () => {
    const many = Array.from({ length: DELIVERY_LIST_MAX + 5 }, (_, index) => ({
      pk: `DELIVERY#d${index}`,
      status: 'Requested',
      acceptedAt: `2026-01-01T10:${String(Math.floor(index / 60)).padStart(2, '0')}:${String(index % 60).padStart(2, '0')}Z`,
    }));
    const listed = deliveryRowsOf(many);
    expect(listed).toHaveLength(DELIVERY_LIST_MAX);
    expect(listed[0]?.deliveryId).toBe(`d${DELIVERY_LIST_MAX + 4}`);
  });
});

describe('the detail of a delivery', () => {
  it('is the read model status and the trail', () => {
    const detail = deliveryDetailOf('d-1', items);
    expect(detail?.status?.status).toBe('Cancelled');
    expect(detail?.trail).toEqual(buildTrail(items));
    expect(detail?.statusError).toBeUndefined();
  });

  it('says why there is no status when only other services hold the delivery', () => {
    const { ingestion: _ingestion, ...others } = items;
    expect(deliveryDetailOf('d-1', others)?.statusError).toMatch(/ingestion read model holds no status/);
  });

  it('is undefined for a delivery no service knows', () => {
    expect(deliveryDetailOf('d-9', {})).toBeUndefined();
  });
});
