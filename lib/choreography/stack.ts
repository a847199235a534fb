import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  BUS_RULE_PATTERNS,
  currentVersion,
  DELIVERY_ALERT_SOURCE,
  OutboxDestination,
  SERVICE_DESTINATIONS,
  SERVICE_TABLE_INDEXES,
  ServiceName,
  TOPIC_FILTER_POLICIES,
  type TopicConsumer,
} from '../../lambdas/choreography/contracts';
import { pascalCase } from '../../lambdas/shared/pascal-case';
import { DeadLetterAlarmsGuardrail } from '../platform/alarms';
import { DataSettings } from '../platform/data-settings';
import { applyGuardrails } from '../platform/guardrails';
import { OperatorAlerts } from '../platform/operator-alerts';
import { createTerminalQueue, WorkQueue } from '../platform/work-queue';
import { type ChoreographyConfig, consumerTimeoutSeconds } from './config';
import { DeliveryApi } from './delivery-api';
import { DeliveryBus } from './delivery-bus';
import { type FakeDroneFleet, type FakeDroneFleetFactory, fleetTimeoutSeconds } from './drone-fleet';
import { DeliveryOperations } from './operations';
import { OutboxRelay, type RelayTargets } from './outbox-relay';
import { Remediation } from './remediation';
import { RequestsTopic } from './requests-topic';
import { EventSchemaRegistry } from './schema-registry';
import { eventJsonSchema, eventVersionName, eventVersions } from './schemas/json-schema';
import { ServiceConsumer } from './service-consumer';
import { ServiceTable } from './service-table';

/** Stack name of the deployable app (bin/app.ts); tests and the CLI use it too. */
export const DRONE_DELIVERY_STACK_NAME = 'DroneDelivery';

/** CfnOutput names read by the tests and the CLI. */
export const DroneDeliveryOutput = {
  ApiUrl: 'ApiUrl',
  ApiKeyId: 'ApiKeyId',
  /** JSON of the requesters and their API key ids (contracts' RequesterRegistry); the first is ApiKeyId's. */
  Requesters: 'Requesters',
  IngestionTableName: 'IngestionTableName',
  PackageTableName: 'PackageTableName',
  DroneSchedulerTableName: 'DroneSchedulerTableName',
  DeliveryTableName: 'DeliveryTableName',
  RemediationTableName: 'RemediationTableName',
  PackageQueueUrl: 'PackageQueueUrl',
  DroneSchedulerQueueUrl: 'DroneSchedulerQueueUrl',
  DeliveryQueueUrl: 'DeliveryQueueUrl',
  IngestionProjectionQueueUrl: 'IngestionProjectionQueueUrl',
  PackageDeadLetterQueueUrl: 'PackageDeadLetterQueueUrl',
  DroneSchedulerDeadLetterQueueUrl: 'DroneSchedulerDeadLetterQueueUrl',
  DeliveryDeadLetterQueueUrl: 'DeliveryDeadLetterQueueUrl',
  IngestionDeadLetterQueueUrl: 'IngestionDeadLetterQueueUrl',
  RemediationDeadLetterQueueUrl: 'RemediationDeadLetterQueueUrl',
  RelayDeadLetterQueueUrl: 'RelayDeadLetterQueueUrl',
  FleetQueueUrl: 'FleetQueueUrl',
  FleetConsumer: 'FleetConsumer',
  DeliveryBusName: 'DeliveryBusName',
  UndeliveredEventsQueueUrl: 'UndeliveredEventsQueueUrl',
  RequestsTopicArn: 'RequestsTopicArn',
  AlertBusName: 'AlertBusName',
  AlertInboxQueueUrl: 'AlertInboxQueueUrl',
  SchemaRegistryName: 'SchemaRegistryName',
} as const;

/**
 * The one message group of the lifecycle events the bus delivers to the ingestion read model's FIFO
 * queue (EventBridge sets a fixed group id per target).
 */
const LIFECYCLE_MESSAGE_GROUP = 'delivery-lifecycle';

/** The services with a table (each has an outbox relay), in the order of the stack's outputs. */
const TABLE_SERVICES = [
  ServiceName.Ingestion,
  ServiceName.Package,
  ServiceName.DroneScheduler,
  ServiceName.Delivery,
  ServiceName.Remediation,
] as const;
type TableService = (typeof TABLE_SERVICES)[number];

/**
 * Item actions of a queue consumer: read its state, commit state and marker in one transaction (Put
 * items, or a ConditionCheck for a duplicate: lambdas/choreography/adapters/service-store.ts). No
 * UpdateItem: no consumer updates in place (the least-privilege report found it granted and never
 * used, docs/testing.md "Least privilege").
 */
const CONSUMER_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem'];

export interface DroneDeliveryStackProps extends StackProps {
  /** The deployment profile (lib/choreography/config.ts). */
  readonly config: ChoreographyConfig;
  /**
   * Builds the fake drone fleet consuming the fleet queue. Passed in by the composition root so this
   * wing never imports lib/fakes.
   * @default - no fake fleet: the fleet queue is left for real drones
   */
  readonly fakeFleet?: FakeDroneFleetFactory;
  /**
   * Operator email subscribed to alerts (CDK context `alertEmail`).
   * @default - no email subscription
   */
  readonly alertEmail?: string;
  /**
   * The deployed operator console's origin (`https://<distribution>.cloudfront.net`): the operator
   * routes answer that browser origin (CORS). CDK context `consoleOrigin`, known after the console's
   * first deploy (its ConsoleUrl output): the console's stack reads this API, so this stack cannot
   * read the console's origin back (a cycle).
   * @default - no browser origin: the routes serve SigV4 clients that are not browsers (the local console backend, the CLI)
   */
  readonly operatorConsoleOrigin?: string;
}

/**
 * Part B: the Choreography pattern for drone delivery. No orchestrator: each service owns a table,
 * reacts to the messages its queue receives and records what it emits in its change log, which its
 * outbox relay publishes (requests topic, delivery queue, delivery bus, alert bus). Composition only.
 */
export class DroneDeliveryStack extends Stack {
  readonly tables: Readonly<Record<TableService, ServiceTable>>;
  readonly consumers: Readonly<Record<TopicConsumer, ServiceConsumer>>;
  readonly relays: Readonly<Record<TableService, OutboxRelay>>;
  readonly requests: RequestsTopic;
  readonly deliveryBus: DeliveryBus;
  readonly alerts: OperatorAlerts;
  readonly api: DeliveryApi;
  readonly remediation: Remediation;
  readonly operations: DeliveryOperations;
  readonly remediationDeadLetterQueue: sqs.Queue;
  readonly relayDeadLetterQueue: sqs.Queue;
  readonly fleetQueue: WorkQueue;
  readonly schemaRegistry: EventSchemaRegistry;
  /** The fake drone fleet, when the deployment runs it. */
  readonly fakeFleet?: FakeDroneFleet;

  constructor(scope: Construct, id: string, props: DroneDeliveryStackProps) {
    super(scope, id, props);
    const { config } = props;
    DataSettings.forStack(this, config);

    const tables = Object.fromEntries(
      TABLE_SERVICES.map((service) => [
        service,
        new ServiceTable(this, `${pascalCase(service)}Table`, {
          indexes: SERVICE_TABLE_INDEXES[service],
          ...(service === ServiceName.Ingestion && { encryptionKey: this.ingestionDataKey() }),
        }),
      ]),
    ) as Record<TableService, ServiceTable>;

    const requests = new RequestsTopic(this, 'Requests');
    const deliveryBus = new DeliveryBus(this, 'DeliveryBus');
    const alerts = new OperatorAlerts(this, 'OperatorAlerts', {
      sources: [DELIVERY_ALERT_SOURCE],
      description: 'Operator alerts of the drone delivery choreography',
      alertEmail: props.alertEmail,
    });

    const remediationDeadLetterQueue = createTerminalQueue(
      this,
      'RemediationDeadLetterQueue',
      'Terminal dead-letter queue of remediation: dead letters it could not decide on wait for an operator (14 days).',
      { fifo: true },
    );
    const consumers = this.serviceConsumers(config, tables, remediationDeadLetterQueue);
    for (const consumer of Object.keys(TOPIC_FILTER_POLICIES) as TopicConsumer[]) {
      const { queue, deadLetterQueue } = consumers[consumer];
      requests.subscribeQueue(queue, TOPIC_FILTER_POLICIES[consumer], deadLetterQueue);
    }

    const remediation = new Remediation(this, 'Remediation', {
      table: tables[ServiceName.Remediation],
      tableActions: CONSUMER_TABLE_ACTIONS,
      deadLetterQueues: Object.fromEntries(
        Object.entries(consumers).map(([service, consumer]) => [service, consumer.deadLetterQueue]),
      ),
      terminalDeadLetterQueue: remediationDeadLetterQueue,
      settings: config.remediation,
      tuning: config.remediationConsumer,
    });

    const { relays, relayDeadLetterQueue } = this.outboxRelays(config, tables, {
      [OutboxDestination.RequestsTopic]: requests.topic,
      [OutboxDestination.DeliveryQueue]: consumers[ServiceName.Delivery].queue,
      [OutboxDestination.DeliveryBus]: deliveryBus.bus,
      [OutboxDestination.AlertBus]: alerts.bus,
    });

    deliveryBus.route(
      'IngestionProjectionRule',
      'Every lifecycle event to the ingestion read model',
      BUS_RULE_PATTERNS.ingestionProjection,
      { queue: consumers[ServiceName.Ingestion].queue, messageGroupId: LIFECYCLE_MESSAGE_GROUP },
    );
    const { fleetQueue, fakeFleet } = this.droneFleet(
      props,
      deliveryBus,
      consumers[ServiceName.Delivery].queue,
    );

    const api = new DeliveryApi(this, 'DeliveryApi', {
      table: tables[ServiceName.Ingestion],
      serviceTables: {
        ingestion: tables[ServiceName.Ingestion],
        package: tables[ServiceName.Package],
        droneScheduler: tables[ServiceName.DroneScheduler],
        delivery: tables[ServiceName.Delivery],
        remediation: tables[ServiceName.Remediation],
      },
      // The door refuses what the fleet cannot fly, with the limits the services themselves use.
      settings: {
        ...config.ingestion,
        maxRangeKm: config.droneScheduler.maxRangeKm,
        maxPayloadGrams: config.package.maxPayloadGrams,
      },
      throttle: config.apiThrottle,
      rateLimitPerIp: config.apiRateLimitPerIp,
      requesters: config.requesters,
    });
    if (props.operatorConsoleOrigin !== undefined)
      api.operator.allowBrowserOrigin(props.operatorConsoleOrigin);
    const schemaRegistry = this.eventSchemaRegistry();

    this.tables = tables;
    this.consumers = consumers;
    this.relays = relays;
    this.requests = requests;
    this.deliveryBus = deliveryBus;
    this.alerts = alerts;
    this.api = api;
    this.remediation = remediation;
    this.remediationDeadLetterQueue = remediationDeadLetterQueue;
    this.relayDeadLetterQueue = relayDeadLetterQueue;
    this.fleetQueue = fleetQueue;
    this.schemaRegistry = schemaRegistry;
    if (fakeFleet) this.fakeFleet = fakeFleet;

    this.publishOutputs(fakeFleet !== undefined);

    // Last: the alarms find the stack's dead-letter and FIFO queues among the constructs above.
    this.operations = new DeliveryOperations(this, 'Operations', {
      alerts,
      relays,
      api: api.api,
      periodSeconds: config.alarmPeriodSeconds,
    });

    applyGuardrails(this);
    this.node.addValidation(new DeadLetterAlarmsGuardrail(this));
  }

  /**
   * The ingestion table is the read model of every delivery (who asked, from where to where, its
   * status history): a customer-managed key, so its key policy and CloudTrail trail are the
   * operator's to control and audit, as the order wing's state and orders tables have. Its readers
   * and writers are granted the key's use through DynamoDB only (lib/platform/data-table.ts).
   */
  private ingestionDataKey(): kms.Key {
    return new kms.Key(this, 'IngestionDataKey', {
      description: 'Encrypts the delivery ingestion table (the deliveries read model)',
      enableKeyRotation: true,
      removalPolicy: DataSettings.of(this).removalPolicy,
    });
  }

  /** The event schemas of the choreography, at each event type's current version. */
  private eventSchemaRegistry(): EventSchemaRegistry {
    return new EventSchemaRegistry(this, 'EventSchemas', {
      description: 'Events of the drone delivery choreography (envelopes, current version of each type)',
      schemas: eventVersions()
        .filter((event) => event.version === currentVersion(event.type))
        .map((event) => ({
          name: `drone-delivery@${event.type}`,
          description: `${eventVersionName(event)}: ${event.type} at its current schema version ${event.version}`,
          content: eventJsonSchema(event),
        })),
    });
  }

  /**
   * The drones' side: the fleet queue the bus routes scheduled deliveries to, and the fake fleet
   * consuming it where the deployment runs one (real drones consume it otherwise).
   */
  private droneFleet(props: DroneDeliveryStackProps, deliveryBus: DeliveryBus, deliveryQueue: sqs.IQueue) {
    const { config } = props;
    const fleetTimeout = Duration.seconds(fleetTimeoutSeconds(config.flight));
    const fleetQueue = new WorkQueue(this, 'FleetQueue', {
      consumerTimeout: fleetTimeout,
      maxReceiveCount: 3,
    });
    deliveryBus.route(
      'DroneFleetRule',
      'Scheduled deliveries to the drone fleet',
      BUS_RULE_PATTERNS.droneFleet,
      {
        queue: fleetQueue.queue,
      },
    );
    const fakeFleet = props.fakeFleet?.(this, {
      fleetQueue: fleetQueue.queue,
      deliveryQueue,
      flight: config.flight,
      timeout: fleetTimeout,
    });
    return { fleetQueue, fakeFleet };
  }

  /**
   * The services that consume the requests topic or the bus: package, drone scheduler, delivery and
   * the ingestion read model, each on its FIFO queue, its dead letters consumed by remediation.
   */
  private serviceConsumers(
    config: ChoreographyConfig,
    tables: Record<TableService, ServiceTable>,
    remediationDeadLetterQueue: sqs.IQueue,
  ): Record<TopicConsumer, ServiceConsumer> {
    // Every consumer's dead-letter queue is consumed by remediation and redriven to its own DLQ.
    const deadLetterConsumption = {
      consumerTimeout: Duration.seconds(consumerTimeoutSeconds(config.remediationConsumer)),
      redrive: {
        queue: remediationDeadLetterQueue,
        maxReceiveCount: config.remediation.maxReceiveAttempts + 1,
      },
    };
    const consumerDefaults = {
      tuning: config.consumer,
      messageRetention: Duration.seconds(config.messageRetentionSeconds),
      deadLetterConsumption,
    };
    const consumers: Record<TopicConsumer, ServiceConsumer> = {
      [ServiceName.Package]: new ServiceConsumer(this, 'PackageService', {
        ...consumerDefaults,
        service: ServiceName.Package,
        handler: 'choreography/handlers/package-service',
        description: 'Package service: checks the packages of a requested delivery (PackageReady/Rejected)',
        table: tables[ServiceName.Package],
        tableActions: CONSUMER_TABLE_ACTIONS,
        settings: config.package,
      }),
      [ServiceName.DroneScheduler]: new ServiceConsumer(this, 'DroneSchedulerService', {
        ...consumerDefaults,
        service: ServiceName.DroneScheduler,
        handler: 'choreography/handlers/drone-scheduler',
        description:
          'Drone Scheduler: assigns a drone and a window, or releases it (DroneScheduled/Unavailable/Released)',
        table: tables[ServiceName.DroneScheduler],
        // Reads the fleet's drone items in one call.
        tableActions: [...CONSUMER_TABLE_ACTIONS, 'dynamodb:BatchGetItem'],
        settings: config.droneScheduler,
      }),
      [ServiceName.Delivery]: new ServiceConsumer(this, 'DeliveryService', {
        ...consumerDefaults,
        service: ServiceName.Delivery,
        handler: 'choreography/handlers/delivery-service',
        description:
          'Delivery service: correlates the package and drone replies and the flight, publishes the lifecycle',
        table: tables[ServiceName.Delivery],
        tableActions: CONSUMER_TABLE_ACTIONS,
        settings: config.delivery,
      }),
      // Fed by the bus (EventBridge sets no deduplication id: content-based) and the requests topic.
      [ServiceName.Ingestion]: new ServiceConsumer(this, 'IngestionProjection', {
        ...consumerDefaults,
        service: ServiceName.Ingestion,
        handler: 'choreography/handlers/ingestion-projection',
        description: 'Ingestion read model: records lifecycle events in the delivery status and history',
        table: tables[ServiceName.Ingestion],
        tableActions: CONSUMER_TABLE_ACTIONS,
        settings: config.ingestion,
        contentBasedDeduplication: true,
      }),
    };
    return consumers;
  }

  /** One outbox relay per service table, publishing its change log to its destinations. */
  private outboxRelays(
    config: ChoreographyConfig,
    tables: Record<TableService, ServiceTable>,
    targets: RelayTargets,
  ) {
    const relayDeadLetterQueue = createTerminalQueue(
      this,
      'RelayDeadLetterQueue',
      'Pointers to change log batches a relay could not publish wait here for an operator (14 days).',
    );
    const relays = Object.fromEntries(
      TABLE_SERVICES.map((service) => [
        service,
        new OutboxRelay(this, `${pascalCase(service)}Relay`, {
          service,
          table: tables[service],
          publishTo: SERVICE_DESTINATIONS[service],
          targets,
          deadLetterQueue: relayDeadLetterQueue,
          tuning: config.relay,
        }),
      ]),
    ) as Record<TableService, OutboxRelay>;
    return { relays, relayDeadLetterQueue };
  }

  /** The stack's outputs (DroneDeliveryOutput): what clients, operators, the CLI and the tests read. */
  private publishOutputs(hasFakeFleet: boolean): void {
    const outputs: Record<keyof typeof DroneDeliveryOutput, string> = {
      ApiUrl: this.api.url,
      ApiKeyId: this.api.apiKey.keyId,
      Requesters: this.api.requesterRegistry,
      IngestionTableName: this.tables[ServiceName.Ingestion].tableName,
      PackageTableName: this.tables[ServiceName.Package].tableName,
      DroneSchedulerTableName: this.tables[ServiceName.DroneScheduler].tableName,
      DeliveryTableName: this.tables[ServiceName.Delivery].tableName,
      RemediationTableName: this.tables[ServiceName.Remediation].tableName,
      PackageQueueUrl: this.consumers[ServiceName.Package].queue.queueUrl,
      DroneSchedulerQueueUrl: this.consumers[ServiceName.DroneScheduler].queue.queueUrl,
      DeliveryQueueUrl: this.consumers[ServiceName.Delivery].queue.queueUrl,
      IngestionProjectionQueueUrl: this.consumers[ServiceName.Ingestion].queue.queueUrl,
      PackageDeadLetterQueueUrl: this.consumers[ServiceName.Package].deadLetterQueue.queueUrl,
      DroneSchedulerDeadLetterQueueUrl: this.consumers[ServiceName.DroneScheduler].deadLetterQueue.queueUrl,
      DeliveryDeadLetterQueueUrl: this.consumers[ServiceName.Delivery].deadLetterQueue.queueUrl,
      IngestionDeadLetterQueueUrl: this.consumers[ServiceName.Ingestion].deadLetterQueue.queueUrl,
      RemediationDeadLetterQueueUrl: this.remediationDeadLetterQueue.queueUrl,
      RelayDeadLetterQueueUrl: this.relayDeadLetterQueue.queueUrl,
      FleetQueueUrl: this.fleetQueue.queue.queueUrl,
      FleetConsumer: hasFakeFleet
        ? 'fake drone fleet (lib/fakes/drone-fleet.ts)'
        : 'none: real drones consume FleetQueueUrl and report FlightProgress to DeliveryQueueUrl',
      DeliveryBusName: this.deliveryBus.bus.eventBusName,
      UndeliveredEventsQueueUrl: this.deliveryBus.undelivered.queueUrl,
      RequestsTopicArn: this.requests.topic.topicArn,
      AlertBusName: this.alerts.bus.eventBusName,
      AlertInboxQueueUrl: this.alerts.inbox.queueUrl,
      SchemaRegistryName: this.schemaRegistry.registryName,
    };
    for (const [name, value] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value });
    }
  }
}
