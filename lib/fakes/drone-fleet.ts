import { RemovalPolicy } from 'aws-cdk-lib';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { ChoreographyEnvKey, ServiceName } from '../../lambdas/choreography/contracts';
import { FAKES_METRICS_NAMESPACE } from '../../lambdas/fakes/contracts';
import type { FakeDroneFleet, FakeDroneFleetSettings } from '../choreography/drone-fleet';
import { LambdaFunction } from '../platform/lambda-function';

/** One flight per invocation: a flight holds its message for the whole flight. */
const FLEET_BATCH_SIZE = 1;

export type DroneFleetProps = FakeDroneFleetSettings;

/**
 * The fake drone fleet: for each DeliveryScheduled on the fleet queue it flies (waits) and reports
 * FlightProgress PICKED_UP, then DELIVERED or FAILED, to the delivery queue. Deployed on emulated
 * profiles and with `-c demo=true`; never next to real drones.
 */
export class DroneFleet extends Construct implements FakeDroneFleet {
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
      logRetentionDays: props.logRetentionDays,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
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
        reportBatchItemFailures: true,
      }),
    );
  }
}

/**
 * The fake fleet of the choreography wing, as its composition root passes it
 * (`addDroneDelivery(app, droneFleetFake)`): built inside the wing's stack.
 */
export function droneFleetFake(scope: Construct, settings: FakeDroneFleetSettings): DroneFleet {
  return new DroneFleet(scope, 'FakeDroneFleet', settings);
}
