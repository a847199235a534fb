/**
 * The capacity model's arithmetic (lib/bench/core/capacity-model.ts) and what it reads of a template
 * (capacity-template.ts), on a hand-made template and usage small enough to check by hand.
 */
import { type Binding, bindingRates } from '../../../lib/bench/core/capacity-model';
import { templateFacts } from '../../../lib/bench/core/capacity-template';
import type { TemplateResources } from '../../../lib/bench/core/default-templates';
import { US_EAST_1_QUOTAS } from '../../../lib/bench/quotas/us-east-1';
import type { RuntimeUsage, TableUsage } from '../../../lib/local-runtime';

const fn = (environment: Record<string, unknown> = {}, reserved?: number) => ({
  Type: 'AWS::Lambda::Function',
  Properties: {
    Environment: { Variables: environment },
    ...(reserved === undefined ? {} : { ReservedConcurrentExecutions: reserved }),
  },
});

const TEMPLATE: TemplateResources = {
  Lifecycle: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true } },
  Fast: {
    Type: 'AWS::SQS::Queue',
    Properties: {
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    },
  },
  Plain: { Type: 'AWS::SQS::Queue', Properties: {} },
  Requests: { Type: 'AWS::SNS::Topic', Properties: { FifoTopic: true } },
  Rule: {
    Type: 'AWS::Events::Rule',
    Properties: {
      Targets: [{ Arn: { 'Fn::GetAtt': ['Lifecycle', 'Arn'] }, SqsParameters: { MessageGroupId: 'one' } }],
    },
  },
  Consumer: fn({ DUE_SHARD_COUNT: '8' }),
  Submit: fn({ ADMISSION_SETTINGS: '{"limit":2000,"shards":4}', ADMISSION_TABLE_NAME: { Ref: 'Admission' } }),
  Sweeper: fn({}, 1),
  Mapping: {
    Type: 'AWS::Lambda::EventSourceMapping',
    Properties: {
      FunctionName: { Ref: 'Consumer' },
      EventSourceArn: { 'Fn::GetAtt': ['Lifecycle', 'Arn'] },
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 5 },
    },
  },
  State: {
    Type: 'AWS::DynamoDB::Table',
    Properties: {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'DueIndex',
          KeySchema: [{ AttributeName: 'DueShard', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'INCLUDE' },
        },
        {
          IndexName: 'ByStatus',
          KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    },
  },
  Admission: { Type: 'AWS::DynamoDB::Table', Properties: {} },
  Stage: {
    Type: 'AWS::ApiGateway::Stage',
    Properties: {
      RestApiId: { Ref: 'Api' },
      MethodSettings: [{ ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: 50 }],
    },
  },
  Plan: {
    Type: 'AWS::ApiGateway::UsagePlan',
    Properties: { Throttle: { RateLimit: 25 }, ApiStages: [{ ApiId: { Ref: 'Api' } }] },
  },
};

const table = (logicalId: string, readUnits: number, writeUnits: number, writes: number): TableUsage => ({
  logicalId,
  requests: writes,
  readUnits,
  writeUnits,
  byOperation: {
    UpdateItem: { requests: writes, readUnits: 0, writeUnits },
    GetItem: { requests: 3, readUnits, writeUnits: 0 },
  },
  byCaller: {},
  byIndex: {},
  writesByCaller: {},
  minimums: { emptyReads: 0, readUnits: 0, conditionalCheckFailures: 0, writeUnits: 0 },
  cancelledTransactions: 0,
});

const queue = (logicalId: string, requestsByAction: Record<string, number>) => ({
  logicalId,
  requests: 0,
  billedRequests: 0,
  emptyReceives: 0,
  requestsByAction,
  deliveriesBy: {},
});

/** Two requests' work: every count below is twice what one request uses. */
const WORK: RuntimeUsage = {
  stateMachines: { flow: { logicalId: 'Flow', executions: 2, transitions: 20, transitionsByState: {} } },
  functions: {
    consumer: { logicalId: 'Consumer', memorySizeMb: 256, invocations: 4, billedMillis: 400 },
    submit: { logicalId: 'Submit', memorySizeMb: 256, invocations: 2, billedMillis: 600 },
  },
  queues: {
    'lifecycle.fifo': queue('Lifecycle', { SendMessage: 6, ReceiveMessage: 2, DeleteMessageBatch: 2 }),
    'fast.fifo': queue('Fast', { SendMessageBatch: 4 }),
    plain: queue('Plain', { SendMessage: 100 }),
  },
  tables: { state: table('State', 0, 40, 10), admission: table('Admission', 4, 8, 2) },
  apis: { api: { logicalId: 'Api', requests: 2 } },
  buses: { bus: { logicalId: 'Bus', events: 4, billedEvents: 4 } },
  topics: {
    'requests.fifo': {
      logicalId: 'Requests',
      publishes: 6,
      billedRequests: 6,
      payloadBytes: 600,
      publishesBy: {},
    },
  },
};

describe('templateFacts', () => {
  const facts = templateFacts(TEMPLATE);

  it('reads FIFO queues, high throughput and the message group a rule fixes', () => {
    expect(facts.queues.Lifecycle).toEqual({ fifo: true, highThroughput: false, fixedMessageGroup: 'one' });
    expect(facts.queues.Fast).toEqual({ fifo: true, highThroughput: true });
    expect(facts.queues.Plain).toEqual({ fifo: false, highThroughput: false });
    expect(facts.fifoTopics).toEqual({ Requests: { highThroughput: false } });
  });

  it('reads event sources, reserved concurrency, shard counts, admission counters and throttles', () => {
    expect(facts.eventSources).toEqual([
      { functionId: 'Consumer', queueId: 'Lifecycle', batchSize: 10, maxConcurrency: 5 },
    ]);
    expect(facts.reservedConcurrency).toEqual({ Sweeper: 1 });
    expect(facts.indexes.map((index) => [index.indexName, index.partitions, index.projectsAll])).toEqual([
      ['DueIndex', 8, false],
      ['ByStatus', 1, true],
    ]);
    expect(facts.hotItems).toEqual([
      { tableId: 'Admission', items: 4, what: expect.stringContaining('shards 4') },
    ]);
    expect(facts.apiThrottles.map((throttle) => [throttle.what, throttle.rateLimit])).toEqual([
      ['stage', 50],
      ['usage plan Plan (per API key)', 25],
    ]);
  });
});

describe('bindingRates', () => {
  const bindings = bindingRates({ facts: templateFacts(TEMPLATE), units: 2, work: WORK }, US_EAST_1_QUOTAS);
  const at = (name: string): Binding | undefined => bindings.find((entry) => entry.name.startsWith(name));

  it('divides each quota by what one request uses of it', () => {
    expect(at('Step Functions StartExecution')?.bindsAt).toBe(300 / 1);
    expect(at('Step Functions state transitions')?.bindsAt).toBe(5_000 / 10);
    // 3 sends a request on a FIFO queue without high throughput: 300 calls a second.
    expect(at('SQS FIFO SendMessage on Lifecycle')?.bindsAt).toBe(100);
    // A delete batch counts as DeleteMessage.
    expect(at('SQS FIFO DeleteMessage on Lifecycle')?.bindsAt).toBe(300);
    expect(at('SQS FIFO SendMessage on Fast (high throughput)')?.bindsAt).toBe(70_000 / 2);
    expect(at('SNS FIFO topic Requests')?.bindsAt).toBe(3_000 / 3);
    expect(at('EventBridge PutEvents')?.bindsAt).toBe(10_000 / 2);
    expect(at('API Gateway requests (account)')?.bindsAt).toBe(10_000);
  });

  it('spreads partition limits over shards and counters', () => {
    // 4 admission counters of 1,000 write units a second; 4 units a request.
    expect(at('DynamoDB writes on admission counters')?.bindsAt).toBe((4 * 1_000) / 4);
    expect(at('DynamoDB reads on admission counters')?.bindsAt).toBe((4 * 3_000) / 2);
    // 5 writes a request, each moving an entry of at most 1 KB (2 units), over 8 DueShard partitions.
    expect(at('DynamoDB index DueIndex')?.bindsAt).toBe((8 * 1_000) / (2 * 5));
    // Projection ALL: an entry is the item's size (40 units / 10 writes = 4), on one partition.
    expect(at('DynamoDB index ByStatus')?.bindsAt).toBe(1_000 / (2 * 5 * 4));
  });

  it("takes an index's write units as measured when the meter has them, and leaves out an index no request writes", () => {
    const state = WORK.tables.state;
    if (!state) throw new Error('the fixture has a state table');
    const measured = bindingRates(
      {
        facts: templateFacts(TEMPLATE),
        units: 2,
        work: {
          ...WORK,
          tables: {
            ...WORK.tables,
            state: {
              ...state,
              // ByStatus not named: DynamoDB Local names only the indexes a write touched.
              byIndex: { DueIndex: { readUnits: 0, writeUnits: 6 } },
            },
          },
        },
      },
      US_EAST_1_QUOTAS,
    );
    const due = measured.find((entry) => entry.name.startsWith('DynamoDB index DueIndex'));
    // 6 units over 2 requests: 3 a request, over 8 partitions of 1,000.
    expect(due?.bindsAt).toBe((8 * 1_000) / 3);
    expect(due?.name).toContain('index units as measured');
    expect(measured.some((entry) => entry.name.startsWith('DynamoDB index ByStatus'))).toBe(false);
  });

  it("bounds concurrency by the functions' billed seconds, and a fixed message group by one batch at a time", () => {
    // 0.2 + 0.3 billed seconds a request.
    expect(at('Lambda concurrent executions')?.bindsAt).toBeCloseTo(1_000 / 0.5, 9);
    expect(at('event source maximum concurrency 5 of Consumer')?.bindsAt).toBeCloseTo(5 / 0.2, 9);
    // Batches of 10 taking 0.1 s: 100 messages a second in the group, 3 a request.
    expect(at("one message group 'one' on Lifecycle")?.bindsAt).toBeCloseTo(100 / 3, 9);
    expect(at('API Gateway usage plan Plan (per API key) throttle of Api')).toMatchObject({
      bindsAt: 25,
      kind: 'ours',
      quota: 'apiUsagePlanThrottle',
      resource: 'Plan',
    });
  });

  it('lists the first to bind first, and leaves out what a request does not use', () => {
    expect(bindings[0]?.name).toBe(
      'DynamoDB index ByStatus on State, hash key status over 1 partition(s) (a key of few values: the busiest value may take every write; index units bounded from above)',
    );
    expect(bindings.map((entry) => entry.bindsAt)).toEqual(
      [...bindings.map((entry) => entry.bindsAt)].sort((a, b) => a - b),
    );
    expect(bindings.some((entry) => entry.name.includes('Plain'))).toBe(false);
    expect(bindings.some((entry) => entry.name.includes('Sweeper'))).toBe(false);
    expect(bindings.some((entry) => entry.name.startsWith('EventBridge rule invocations'))).toBe(false);
  });

  it('refuses an empty batch', () => {
    expect(() =>
      bindingRates({ facts: templateFacts(TEMPLATE), units: 0, work: WORK }, US_EAST_1_QUOTAS),
    ).toThrow('at least one request');
  });
});
