import * as apigw from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import {
  CHOREOGRAPHY_METRICS_NAMESPACE,
  ChoreographyEnvKey,
  DELIVERIES_BY_STATUS_INDEX,
  type DeliveryTables,
  OperatorDeliveryRoute,
  ServiceName,
} from '../../lambdas/choreography/contracts';
import { DataSettings } from '../platform/data-settings';
import { LambdaFunction } from '../platform/lambda-function';
import { OperatorAccess } from '../platform/operator-access';
import {
  acknowledgeIamAuthorization,
  allowBrowserOrigin,
  type OperatorRoutes,
  operatorMethodsOf,
} from '../platform/operator-routes';
import type { ServiceTable } from './service-table';

export interface DeliveryOperatorRoutesProps {
  /** The delivery API the routes are added to. */
  readonly api: apigw.RestApi;
  /** The API's stage URL, without a trailing slash. */
  readonly url: string;
  /** Validates the {deliveryId} path parameter at the gateway. */
  readonly parameterValidator: apigw.IRequestValidator;
  /** The table of each service holding a delivery's items (the trail reads one item of each). */
  readonly tables: { readonly [K in keyof DeliveryTables]: ServiceTable };
}

/**
 * The operators' door to the deliveries (README, Operator console): `GET /operator/deliveries`
 * (the ingestion read model's deliveries, newest first) and `GET /operator/deliveries/{deliveryId}`
 * (status and trail across services, dead letters and remediation decisions included), on the
 * delivery API, authorised by IAM (SigV4), never by the requesters' API key. Each function may read
 * what it answers from and nothing else: the list queries ingestion's deliveries-by-status index,
 * the trail gets one item of each service's table.
 */
export class DeliveryOperatorRoutes extends Construct {
  readonly listDeliveries: LambdaFunction;
  readonly showDelivery: LambdaFunction;
  readonly api: apigw.RestApi;
  readonly url: string;
  readonly methods: readonly apigw.Method[];
  /** The managed policy operators are given to call these routes (execute-api:Invoke on them only). */
  readonly operatorAccess: OperatorAccess;
  /** What an operator console in another stack needs of these routes. */
  readonly routes: OperatorRoutes;
  private origin?: string;
  private readonly resources: readonly apigw.Resource[];

  constructor(scope: Construct, id: string, props: DeliveryOperatorRoutesProps) {
    super(scope, id);
    const common = {
      metricsNamespace: CHOREOGRAPHY_METRICS_NAMESPACE,
      removalPolicy: DataSettings.of(this).removalPolicy,
      serviceName: ServiceName.Ingestion,
    };
    this.listDeliveries = new LambdaFunction(this, 'ListDeliveries', {
      ...common,
      handler: 'choreography/handlers/operator-deliveries',
      description: 'GET /operator/deliveries: the deliveries of the ingestion read model, newest first',
      environment: { [ChoreographyEnvKey.TableName]: props.tables.ingestion.tableName },
    });
    props.tables.ingestion.grantQueryIndex(this.listDeliveries.function, DELIVERIES_BY_STATUS_INDEX.name);

    const tableNames: DeliveryTables = {
      ingestion: props.tables.ingestion.tableName,
      package: props.tables.package.tableName,
      droneScheduler: props.tables.droneScheduler.tableName,
      delivery: props.tables.delivery.tableName,
      remediation: props.tables.remediation.tableName,
    };
    this.showDelivery = new LambdaFunction(this, 'ShowDelivery', {
      ...common,
      handler: 'choreography/handlers/operator-delivery',
      description:
        'GET /operator/deliveries/{deliveryId}: status and trail across services, dead letters and decisions',
      environment: { [ChoreographyEnvKey.DeliveryTables]: JSON.stringify(tableNames) },
    });
    for (const table of Object.values(props.tables))
      table.grant(this.showDelivery.function, 'dynamodb:GetItem');

    // IAM, not the requesters' API key (the RestApi's default): operators are IAM principals.
    const iamOnly: apigw.MethodOptions = {
      authorizationType: apigw.AuthorizationType.IAM,
      apiKeyRequired: false,
    };
    this.api = props.api;
    this.url = props.url;
    const deliveries = props.api.root.resourceForPath(OperatorDeliveryRoute.deliveries);
    const delivery = deliveries.addResource(`{${OperatorDeliveryRoute.deliveryIdParameter}}`);
    this.resources = [deliveries, delivery];
    this.methods = [
      deliveries.addMethod('GET', new apigw.LambdaIntegration(this.listDeliveries.function), iamOnly),
      delivery.addMethod('GET', new apigw.LambdaIntegration(this.showDelivery.function), {
        ...iamOnly,
        requestParameters: { [`method.request.path.${OperatorDeliveryRoute.deliveryIdParameter}`]: true },
        requestValidator: props.parameterValidator,
      }),
    ];
    acknowledgeIamAuthorization(this.methods);
    this.operatorAccess = new OperatorAccess(this, 'OperatorAccess', {
      methods: this.methods,
      routesDescription: "the delivery API's operator routes",
    });
    this.routes = {
      url: this.url,
      restApiId: props.api.restApiId,
      stageName: props.api.deploymentStage.stageName,
      methods: operatorMethodsOf(this.methods),
    };
  }

  /** The one browser origin allowed (allowBrowserOrigin), if any. */
  get browserOrigin(): string | undefined {
    return this.origin;
  }

  /**
   * Lets one browser origin (the operator console's) call these routes (the platform's
   * allowBrowserOrigin). One origin per API: a second call throws.
   */
  allowBrowserOrigin(origin: string): void {
    if (this.origin !== undefined) {
      throw new Error(`DeliveryOperatorRoutes ${this.node.path}: a browser origin is already allowed`);
    }
    this.origin = origin;
    allowBrowserOrigin(
      {
        api: this.api,
        resources: this.resources,
        functions: [this.listDeliveries.function, this.showDelivery.function],
      },
      origin,
    );
  }
}
