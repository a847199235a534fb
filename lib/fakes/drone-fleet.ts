import { type Duration } from 'aws-cdk-lib';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ChoreographyEnvKey, type FlightSettings, ServiceName } from '../../lambdas/choreography/contracts';
import { FAKES_METRICS_NAMESPACE } from '../../lambdas/fakes/contracts';
import { LambdaFunction } from '../platform/lambda-function';

/** One flight per invocation: a flight holds its message for the whole flight. */
const FLEET_BATCH_SIZE = 1;
/** Flights in the air at once, at most (the storm guard every consumer has). */
const FLEET_MAX_CONCURRENCY = 10;

/**
 * What the fake fleet needs from the deployment (the wing's FakeDroneFleetSettings, matched by shape:
 * the fakes never import a wing's infrastructure).
 */
export interface DroneFleetProps {
  /** The fleet queue (standard, with its dead-letter queue) the fake consumes. */
  readonly fleetQueue: sqs.IQueue;
  /** Where flight progress goes (FIFO: group = deliveryId, dedup id = eventId). */
  readonly deliveryQueue: sqs.IQueue;
  /** How the fake drones fly: speed, range, payload and failures, from the profile. */
  readonly flight: FlightSettings;
  /** The consumer's timeout: the fleet queue's visibility timeout was sized for it. */
  readonly timeout: Duration;
}

/**
 * The fake drone fleet: for each DeliveryScheduled on the fleet queue it flies (waits) and reports
 * FlightProgress PICKED_UP, then DELIVERED or FAILED, to the delivery queue. Deployed on emulated
 * profiles and with `-c demo=true`; never next to real drones.
 */
export class DroneFleet extends Construct {
  readonly service: LambdaFunction;

  get fleet() {
    return this.service.function;
  }

  constructor(scope: Construct, id: string, props: DroneFleetProps) {
    super(scope, id);
    this.service = new LambdaFunction(this, 'Fleet', {
      handler: 'fakes/handlers/drone-fleet',
      metricsNamespace: FAKES_METRICS_NAMESPACE,
      description: 'Fake drone fleet: flies each scheduled delivery and reports its progress',
      serviceName: ServiceName.DroneFleet,
      timeout: props.timeout,
      environment: {
        [ChoreographyEnvKey.DeliveryQueueUrl]: props.deliveryQueue.queueUrl,
        [ChoreographyEnvKey.Settings]: JSON.stringify(props.flight),
      },
    });
    props.deliveryQueue.grantSendMessages(this.service.function);
    this.service.function.addEventSource(
      new eventSources.SqsEventSource(props.fleetQueue, {
        batchSize: FLEET_BATCH_SIZE,
        maxConcurrency: FLEET_MAX_CONCURRENCY,
        reportBatchItemFailures: true,
      }),
    );
  }
}

/**
 * The fake fleet of the choreography wing, as its composition root passes it
 * (`addDroneDelivery(app, droneFleetFake)`): built inside the wing's stack.
 */
export function droneFleetFake(scope: Construct, settings: DroneFleetProps): DroneFleet {
  return new DroneFleet(scope, 'FakeDroneFleet', settings);
}
