import { type CfnElement, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import {
  BUS_RULE_PATTERNS,
  CHOREOGRAPHY_METRICS_NAMESPACE,
  ChoreographyEnvKey,
  CONSUMED_EVENT_TYPES,
  currentVersion,
  DESTINATION_ENV_KEY,
  EVENT_TYPES,
  type EventType,
  OUTBOX_DESTINATIONS,
  PRODUCED_EVENT_TYPES,
  SERVICE_DESTINATIONS,
  ServiceName,
  SubmitDeliverySettingsSchema,
  TABLE_PARTITION_KEY,
  TABLE_TTL_ATTRIBUTE,
  TOPIC_FILTER_POLICIES,
  type TopicConsumer,
} from '../../../lambdas/choreography/contracts';
import { loadChoreographyConfig } from '../../../lib/choreography/config';
import { addDroneDelivery } from '../../../lib/choreography/deployment';
import { OUTBOX_STREAM_FILTER } from '../../../lib/choreography/outbox-relay';
import { eventJsonSchema } from '../../../lib/choreography/schemas/json-schema';
import { DroneDeliveryOutput } from '../../../lib/choreography/stack';
import { droneFleetFake } from '../../../lib/fakes/drone-fleet';
import { renderCfnString } from '../../../lib/platform/guardrails';
import { testApp } from '../support/synth';
import {
  type Resource,
  refId,
  resources,
  type SynthesizedDroneDelivery,
  synthesizeDroneDelivery,
} from './synth';

const config = loadChoreographyConfig('default');
const logicalIdOf = (construct: IConstruct): string =>
  Stack.of(construct).resolve((construct.node.defaultChild as CfnElement).logicalId) as string;
const CONSUMER_SETTINGS: Readonly<Record<TopicConsumer, object & { maxReceiveAttempts: number }>> = {
  [ServiceName.Package]: config.package,
  [ServiceName.DroneScheduler]: config.droneScheduler,
  [ServiceName.Delivery]: config.delivery,
  [ServiceName.Ingestion]: config.ingestion,
};
const TOPIC_CONSUMERS = Object.keys(TOPIC_FILTER_POLICIES) as TopicConsumer[];

describe('DroneDelivery stack (default profile, demo: fake drone fleet)', () => {
  let synth: SynthesizedDroneDelivery;
  let template: Template;
  const idOf = (construct: IConstruct) => logicalIdOf(construct);
  const queueOf = (consumer: TopicConsumer) => synth.stack.consumers[consumer];
  const functionsByService = (service: string) =>
    Object.entries(resources(template, 'AWS::Lambda::Function')).filter(
      ([, fn]) => fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME === service,
    );
  const onlyFunction = (service: string): [string, Resource] => {
    const found = functionsByService(service);
    if (found.length !== 1) throw new Error(`Expected one function of ${service}, found ${found.length}`);
    return found[0] as [string, Resource];
  };
  /** The function consuming the consumer's queue. */
  const consumerFunction = (consumer: TopicConsumer): Resource => {
    const esm = queueEsms().find((e) => refId(e.Properties.EventSourceArn) === idOf(queueOf(consumer).queue));
    return template.toJSON().Resources[refId(esm?.Properties.FunctionName) as string] as Resource;
  };
  const queueEsms = () =>
    Object.values(resources(template, 'AWS::Lambda::EventSourceMapping')).filter((esm) => {
      const source = refId(esm.Properties.EventSourceArn);
      return source !== undefined && template.toJSON().Resources[source]?.Type === 'AWS::SQS::Queue';
    });

  beforeAll(() => {
    synth = synthesizeDroneDelivery({ profile: 'default', demo: 'true' });
    template = synth.template;
  });

  it('lets no role update a service table in place: the services commit whole items in transactions', () => {
    // Granted and never used until the least-privilege report showed it (docs/testing.md "Least privilege").
    const tableArns = Object.values(synth.stack.tables).map((table) =>
      JSON.stringify(Stack.of(table).resolve(table.table.tableArn)),
    );
    const updates = Object.values(resources(template, 'AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>)
        .filter((statement) => [statement.Action].flat().includes('dynamodb:UpdateItem'))
        .flatMap((statement) => [statement.Resource].flat().map((resource) => JSON.stringify(resource))),
    );
    expect(updates.filter((resource) => tableArns.includes(resource))).toEqual([]);
  });

  describe('tables', () => {
    it('one per service: pk, TTL, NEW_AND_OLD_IMAGES stream, PITR, encrypted, on-demand, retained', () => {
      const tables = Object.values(resources(template, 'AWS::DynamoDB::Table'));
      expect(tables).toHaveLength(5);
      for (const table of tables) {
        expect(table.Properties).toMatchObject({
          KeySchema: [{ AttributeName: TABLE_PARTITION_KEY, KeyType: 'HASH' }],
          TimeToLiveSpecification: { AttributeName: TABLE_TTL_ATTRIBUTE, Enabled: true },
          StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          SSESpecification: { SSEEnabled: true },
          BillingMode: 'PAY_PER_REQUEST',
        });
        expect(table.Properties.TableName).toBeUndefined();
        expect(table.DeletionPolicy).toBe('Retain');
      }
    });
  });

  describe('queues', () => {
    it.each(TOPIC_CONSUMERS)('%s: FIFO queue, FIFO DLQ, redrive after maxReceiveAttempts + 1', (consumer) => {
      const queue = template.toJSON().Resources[idOf(queueOf(consumer).queue)] as Resource;
      const dlq = template.toJSON().Resources[idOf(queueOf(consumer).deadLetterQueue)] as Resource;
      expect(queue.Properties).toMatchObject({
        FifoQueue: true,
        ContentBasedDeduplication: consumer === ServiceName.Ingestion,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { maxReceiveCount: CONSUMER_SETTINGS[consumer].maxReceiveAttempts + 1 },
      });
      expect(refId(queue.Properties.RedrivePolicy.deadLetterTargetArn)).toBe(
        idOf(queueOf(consumer).deadLetterQueue),
      );
      expect(dlq.Properties).toMatchObject({
        FifoQueue: true,
        MessageRetentionPeriod: 14 * 86_400,
        RedrivePolicy: { maxReceiveCount: config.remediation.maxReceiveAttempts + 1 },
      });
      expect(refId(dlq.Properties.RedrivePolicy.deadLetterTargetArn)).toBe(
        idOf(synth.stack.remediationDeadLetterQueue),
      );
    });

    it('every queue has a DLQ except the terminal ones (remediation, relay, undelivered events, alert inbox, DLQs of standard queues)', () => {
      const all = resources(template, 'AWS::SQS::Queue');
      const targets = new Set(
        Object.values(all).map((queue) => refId(queue.Properties.RedrivePolicy?.deadLetterTargetArn)),
      );
      const withoutRedrive = Object.keys(all).filter((id) => !all[id]?.Properties.RedrivePolicy);
      const terminal = [
        idOf(synth.stack.remediationDeadLetterQueue),
        idOf(synth.stack.relayDeadLetterQueue),
        idOf(synth.stack.deliveryBus.undelivered),
        idOf(synth.stack.alerts.inbox),
        idOf(synth.stack.fleetQueue.deadLetterQueue),
      ];
      expect(withoutRedrive.sort()).toEqual([...terminal].sort());
      for (const id of withoutRedrive) {
        if (id === idOf(synth.stack.alerts.inbox)) continue;
        expect(
          targets.has(id) ||
            id === idOf(synth.stack.relayDeadLetterQueue) ||
            id === idOf(synth.stack.deliveryBus.undelivered),
        ).toBe(true);
      }
    });

    it('visibility timeout of every consumed queue is 6 x its consumer timeout (timeout = seconds per message x batch)', () => {
      const timeout = config.consumer.secondsPerMessage * config.consumer.batchSize;
      for (const consumer of TOPIC_CONSUMERS) {
        const queue = template.toJSON().Resources[idOf(queueOf(consumer).queue)] as Resource;
        expect(queue.Properties.VisibilityTimeout).toBe(6 * timeout);
        expect(consumerFunction(consumer).Properties.Timeout).toBe(timeout);
      }
    });

    it('every SQS event source: partial batch failures, batch size <= 10, maximum concurrency (storm guard)', () => {
      const esms = queueEsms();
      // four consumers, remediation on their four DLQs, the fake fleet
      expect(esms).toHaveLength(9);
      for (const esm of esms) {
        expect(esm.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
        expect(esm.Properties.BatchSize).toBeLessThanOrEqual(10);
      }
      const fifoEsms = esms.filter((esm) => {
        const queue = template.toJSON().Resources[refId(esm.Properties.EventSourceArn) as string] as Resource;
        return queue.Properties.FifoQueue === true;
      });
      expect(fifoEsms).toHaveLength(8);
      // Lambda's minimum for MaximumConcurrency is 2; the fake fleet's standard queue is bounded too.
      for (const esm of esms) {
        expect(esm.Properties.ScalingConfig.MaximumConcurrency).toBeGreaterThanOrEqual(2);
      }
    });
  });

  describe('requests topic', () => {
    it('is an SNS FIFO topic without content-based deduplication, encrypted with its own key', () => {
      const topics = Object.values(resources(template, 'AWS::SNS::Topic')).filter(
        (t) => t.Properties.FifoTopic,
      );
      expect(topics).toHaveLength(1);
      expect(topics[0]?.Properties).toMatchObject({
        FifoTopic: true,
        ContentBasedDeduplication: false,
        KmsMasterKeyId: expect.anything(),
      });
    });

    it.each(TOPIC_CONSUMERS)(
      '%s subscribes raw, with the contract filter policy and its own DLQ',
      (consumer) => {
        const subscriptions = Object.values(resources(template, 'AWS::SNS::Subscription')).filter(
          (s) => refId(s.Properties.Endpoint) === idOf(queueOf(consumer).queue),
        );
        expect(subscriptions).toHaveLength(1);
        expect(subscriptions[0]?.Properties).toMatchObject({
          Protocol: 'sqs',
          RawMessageDelivery: true,
          FilterPolicyScope: 'MessageAttributes',
          FilterPolicy: TOPIC_FILTER_POLICIES[consumer],
        });
        expect(refId(subscriptions[0]?.Properties.RedrivePolicy.deadLetterTargetArn)).toBe(
          idOf(queueOf(consumer).deadLetterQueue),
        );
      },
    );
  });

  describe('outbox relays', () => {
    const relayEsms = () =>
      Object.values(resources(template, 'AWS::Lambda::EventSourceMapping')).filter(
        (esm) => esm.Properties.StartingPosition !== undefined,
      );

    it('one per table: stream filter on outbox entries, bisect, bounded retries, record age, parallelization 1, DLQ', () => {
      const esms = relayEsms();
      expect(esms).toHaveLength(5);
      for (const esm of esms) {
        expect(esm.Properties).toMatchObject({
          FilterCriteria: { Filters: [{ Pattern: JSON.stringify(OUTBOX_STREAM_FILTER) }] },
          BisectBatchOnFunctionError: true,
          MaximumRetryAttempts: config.relay.retryAttempts,
          MaximumRecordAgeInSeconds: config.relay.maxRecordAgeSeconds,
          ParallelizationFactor: 1,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        });
        expect(esm.Properties.BatchSize).toBeLessThanOrEqual(10);
        expect(refId(esm.Properties.DestinationConfig.OnFailure.Destination)).toBe(
          idOf(synth.stack.relayDeadLetterQueue),
        );
      }
      expect(JSON.stringify(OUTBOX_STREAM_FILTER)).toBe(
        '{"dynamodb":{"NewImage":{"sequence":{"N":[{"exists":true}]}}}}',
      );
    });

    it.each([
      ServiceName.Ingestion,
      ServiceName.Package,
      ServiceName.DroneScheduler,
      ServiceName.Delivery,
      ServiceName.Remediation,
    ])('the %s relay knows only the destinations its service publishes to', (service) => {
      const [, relay] = onlyFunction(`${service}-relay`);
      const variables = relay.Properties.Environment.Variables as Record<string, unknown>;
      const expected = SERVICE_DESTINATIONS[service].map((d) => DESTINATION_ENV_KEY[d]).sort();
      const present = OUTBOX_DESTINATIONS.map((d) => DESTINATION_ENV_KEY[d]).filter(
        (key) => key in variables,
      );
      expect(present.sort()).toEqual(expected);
    });

    it('grants follow the destinations: only topic publishers may sns:Publish, only bus publishers events:PutEvents', () => {
      const policies = Object.values(resources(template, 'AWS::IAM::Policy'));
      const actionsOfRole = (roleRef: unknown) =>
        policies
          .filter((p) => (p.Properties.Roles as unknown[]).some((r) => refId(r) === refId(roleRef)))
          .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
          .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
      for (const service of [
        ServiceName.Ingestion,
        ServiceName.Package,
        ServiceName.DroneScheduler,
        ServiceName.Delivery,
        ServiceName.Remediation,
      ]) {
        const [, relay] = onlyFunction(`${service}-relay`);
        const actions = actionsOfRole(relay.Properties.Role);
        const destinations = SERVICE_DESTINATIONS[service];
        expect(actions.includes('sns:Publish')).toBe(destinations.includes('requests-topic'));
        expect(actions.includes('events:PutEvents')).toBe(
          destinations.includes('delivery-bus') || destinations.includes('alert-bus'),
        );
        expect(actions.includes('sqs:SendMessage')).toBe(true); // the relay DLQ (on-failure), and the delivery queue
      }
    });
  });

  describe('delivery bus', () => {
    it('rules carry the contract patterns and deliver $.detail; the FIFO target groups by delivery id', () => {
      const rules = Object.values(resources(template, 'AWS::Events::Rule')).filter(
        (rule) => refId(rule.Properties.EventBusName) === idOf(synth.stack.deliveryBus.bus),
      );
      expect(rules).toHaveLength(2);
      const byTarget = (queue: sqs.IQueue) =>
        rules.find((rule) => refId(rule.Properties.Targets[0].Arn) === idOf(queue)) as Resource;
      const projection = byTarget(queueOf(ServiceName.Ingestion).queue);
      expect(projection.Properties.EventPattern).toEqual(BUS_RULE_PATTERNS.ingestionProjection);
      expect(projection.Properties.Targets[0]).toMatchObject({
        InputPath: '$.detail',
        SqsParameters: { MessageGroupId: 'delivery-lifecycle' },
        DeadLetterConfig: { Arn: expect.anything() },
      });
      const fleet = byTarget(synth.stack.fleetQueue.queue);
      expect(fleet.Properties.EventPattern).toEqual(BUS_RULE_PATTERNS.droneFleet);
      expect(fleet.Properties.Targets[0].InputPath).toBe('$.detail');
      expect(fleet.Properties.Targets[0].SqsParameters).toBeUndefined();
    });

    it('has an archive', () => {
      expect(Object.keys(resources(template, 'AWS::Events::Archive'))).toHaveLength(1);
    });

    it('storm guard: no service hears the event types it produces', () => {
      const heard: Record<string, Set<EventType>> = {};
      const hear = (service: string, types: readonly EventType[]) => {
        heard[service] ??= new Set();
        for (const type of types) heard[service].add(type);
      };
      const typesInPolicy = (policy: unknown): EventType[] =>
        JSON.stringify(policy)
          .match(/"type":\[[^\]]*\]/g)
          ?.flatMap((m) => JSON.parse(`{${m}}`).type) ?? [];
      for (const consumer of TOPIC_CONSUMERS) hear(consumer, typesInPolicy(TOPIC_FILTER_POLICIES[consumer]));
      hear(ServiceName.Ingestion, BUS_RULE_PATTERNS.ingestionProjection['detail-type'] as EventType[]);
      hear(ServiceName.DroneFleet, BUS_RULE_PATTERNS.droneFleet['detail-type'] as EventType[]);
      // Direct senders to the delivery queue: the functions holding its URL (relays and the fleet).
      for (const [, fn] of Object.entries(resources(template, 'AWS::Lambda::Function'))) {
        const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
        if (!(ChoreographyEnvKey.DeliveryQueueUrl in variables)) continue;
        const sender = String(variables.POWERTOOLS_SERVICE_NAME).replace(/-relay$/, '') as ServiceName;
        hear(ServiceName.Delivery, PRODUCED_EVENT_TYPES[sender]);
      }
      for (const [service, types] of Object.entries(heard)) {
        const own = PRODUCED_EVENT_TYPES[service as ServiceName].filter((type) => types.has(type));
        expect({ service, own }).toEqual({ service, own: [] });
        // and everything routed to it is something it parses
        const unparsed = [...types].filter(
          (type) => !CONSUMED_EVENT_TYPES[service as ServiceName].includes(type),
        );
        expect({ service, unparsed }).toEqual({ service, unparsed: [] });
      }
    });
  });

  describe('functions', () => {
    it('every choreography function counts into the DroneDelivery namespace (the fake fleet into the fakes one)', () => {
      for (const fn of Object.values(resources(template, 'AWS::Lambda::Function'))) {
        const variables = fn.Properties.Environment.Variables;
        expect(variables.POWERTOOLS_METRICS_NAMESPACE).toBe(
          variables.POWERTOOLS_SERVICE_NAME === ServiceName.DroneFleet
            ? 'FakeRemoteServices'
            : CHOREOGRAPHY_METRICS_NAMESPACE,
        );
      }
    });

    it.each(TOPIC_CONSUMERS)('%s consumer: its table, its own DLQ and its settings', (consumer) => {
      const variables = consumerFunction(consumer).Properties.Environment.Variables;
      expect(refId(variables[ChoreographyEnvKey.DeadLetterQueueUrl])).toBe(
        idOf(queueOf(consumer).deadLetterQueue),
      );
      expect(refId(variables[ChoreographyEnvKey.TableName])).toBe(idOf(synth.stack.tables[consumer].table));
      expect(JSON.parse(variables[ChoreographyEnvKey.Settings])).toEqual(CONSUMER_SETTINGS[consumer]);
    });

    it("submit-delivery's settings: ingestion's, and the range and payload it refuses at the door, from the services that own them", () => {
      const submit = template.toJSON().Resources[idOf(synth.stack.api.submitDelivery.function)] as Resource;
      const settings = JSON.parse(submit.Properties.Environment.Variables[ChoreographyEnvKey.Settings]);
      expect(settings).toEqual({
        ...config.ingestion,
        maxRangeKm: config.droneScheduler.maxRangeKm,
        maxPayloadGrams: config.package.maxPayloadGrams,
      });
      expect(SubmitDeliverySettingsSchema.strict().safeParse(settings).success).toBe(true);
    });

    it('remediation consumes every consumer DLQ and knows their URLs', () => {
      const [id, remediation] = onlyFunction(ServiceName.Remediation);
      const sources = queueEsms()
        .filter((esm) => esm.Properties.FunctionName.Ref === id)
        .map((esm) => refId(esm.Properties.EventSourceArn));
      expect(sources.sort()).toEqual(TOPIC_CONSUMERS.map((c) => idOf(queueOf(c).deadLetterQueue)).sort());
      const urls = JSON.parse(
        renderCfnString(remediation.Properties.Environment.Variables[ChoreographyEnvKey.DeadLetterQueueUrls]),
      );
      expect(urls).toEqual(
        Object.fromEntries(
          TOPIC_CONSUMERS.map((consumer) => [consumer, `{{Ref:${idOf(queueOf(consumer).deadLetterQueue)}}}`]),
        ),
      );
    });
  });

  it('a schema registry holds the current version of every event type, generated from the zod schemas', () => {
    expect(Object.keys(resources(template, 'AWS::EventSchemas::Registry'))).toHaveLength(1);
    const schemas = Object.values(resources(template, 'AWS::EventSchemas::Schema'));
    expect(schemas).toHaveLength(EVENT_TYPES.length);
    for (const type of EVENT_TYPES) {
      const schema = schemas.find((s) => s.Properties.SchemaName === `drone-delivery@${type}`);
      expect(schema?.Properties.Type).toBe('JSONSchemaDraft4');
      expect(JSON.parse(schema?.Properties.Content)).toEqual(
        eventJsonSchema({ type, version: currentVersion(type) }),
      );
    }
  });

  it('outputs every name the tests and the CLI read', () => {
    expect(Object.keys(template.toJSON().Outputs).sort()).toEqual(Object.values(DroneDeliveryOutput).sort());
    expect(template.toJSON().Outputs.FleetConsumer.Value).toMatch(/fake drone fleet/);
  });

  it('the fake fleet consumes the fleet queue and may send to the delivery queue', () => {
    const [id, fleet] = onlyFunction(ServiceName.DroneFleet);
    const esm = queueEsms().find((e) => e.Properties.FunctionName.Ref === id);
    expect(refId(esm?.Properties.EventSourceArn)).toBe(idOf(synth.stack.fleetQueue.queue));
    expect(refId(fleet.Properties.Environment.Variables[ChoreographyEnvKey.DeliveryQueueUrl])).toBe(
      idOf(queueOf(ServiceName.Delivery).queue),
    );
  });
});

describe('DroneDelivery stack without the fake fleet (default profile, no demo)', () => {
  it('leaves the fleet queue to real drones and says so', () => {
    const { template } = synthesizeDroneDelivery({ profile: 'default' });
    const functions = Object.values(resources(template, 'AWS::Lambda::Function'));
    expect(
      functions.some((fn) => fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME === 'drone-fleet'),
    ).toBe(false);
    expect(template.toJSON().Outputs.FleetConsumer.Value).toMatch(/real drones/);
  });

  it('the local profile runs the fake fleet, and nothing is retained', () => {
    const { template } = synthesizeDroneDelivery({ profile: 'local' });
    expect(template.toJSON().Outputs.FleetConsumer.Value).toMatch(/fake drone fleet/);
    for (const table of Object.values(resources(template, 'AWS::DynamoDB::Table'))) {
      expect(table.DeletionPolicy).toBe('Delete');
    }
  });

  it('flies a fleet of droneFleetSize drones when the context names one (the bench measures throughput with it)', () => {
    const { template } = synthesizeDroneDelivery({ profile: 'local', droneFleetSize: '40' });
    const scheduler = Object.values(resources(template, 'AWS::Lambda::Function')).find(
      (fn) => fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME === ServiceName.DroneScheduler,
    );
    const settings = JSON.parse(scheduler?.Properties.Environment.Variables[ChoreographyEnvKey.Settings]);
    expect(settings.drones).toHaveLength(40);
    expect(settings.drones[39]).toBe('drone-0040');
    expect(settings.assignmentSeconds).toBe(loadChoreographyConfig('local').droneScheduler.assignmentSeconds);
  });

  it.each(['0', '2.5', 'many', '1001'])('fails synth naming droneFleetSize when it is %s', (size) => {
    expect(() => synthesizeDroneDelivery({ profile: 'local', droneFleetSize: size })).toThrow(
      size === '1001'
        ? /droneScheduler\.drones: .*1000/
        : /"droneFleetSize" must be a whole number of drones, got "/,
    );
  });

  it('the guardrail fails synth when a consumer queue loses its redrive', () => {
    const app = testApp({ profile: 'local' });
    const stack = addDroneDelivery(app, droneFleetFake);
    (stack.consumers[ServiceName.Package].queue.node.defaultChild as sqs.CfnQueue).redrivePolicy = undefined;
    expect(() => app.synth()).toThrow(
      /PackageService\/Work\/Queue\/Resource is consumed by a Lambda event source but has no redrive policy/,
    );
  });
});
