import { Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import {
  CHOREOGRAPHY_METRICS_NAMESPACE,
  ChoreographyEnvKey,
  DeliveryApiRoute,
  type RequesterRegistry,
  ServiceName,
  type SubmitDeliverySettings,
} from '../../lambdas/choreography/contracts';
import { createKeyedRestApi } from '../platform/keyed-rest-api';
import { LambdaFunction } from '../platform/lambda-function';
import { DeliveryOperatorRoutes, type DeliveryOperatorRoutesProps } from './operator-routes';
import type { ServiceTable } from './service-table';

export interface DeliveryApiProps {
  /** The ingestion service's table: deliveries as accepted, their change log and read model. */
  readonly table: ServiceTable;
  /** Every service's table, read by the operator routes (a delivery's trail). */
  readonly serviceTables: DeliveryOperatorRoutesProps['tables'];
  /**
   * SERVICE_SETTINGS of submit-delivery: ingestion's, with the fleet's range and payload it refuses
   * beyond at the door (400 naming `dropoff` or `packages`).
   */
  readonly settings: SubmitDeliverySettings;
  /** Stage throttling, also the usage plan's limits. */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /** Requests per client IP in 5 minutes (WAF web ACL on the stage). @default - no web ACL */
  readonly rateLimitPerIp?: number;
  /** The delivery requesters: each gets its own API key; the handlers map the key id to the requester. */
  readonly requesters: readonly string[];
}

/**
 * The ingestion service's front door: a REST API (`POST /deliveries`, `GET /deliveries/{deliveryId}`)
 * behind an API key per requester (configuration) and a usage plan, and the operators' routes (`/operator/deliveries`, AWS_IAM). submit-delivery writes the delivery and its DeliveryRequested
 * change log entry (the relay publishes it); get-delivery reads the read model. The body size limit
 * (MAX_DELIVERY_BODY_BYTES, 413) is checked by submit-delivery before parsing, as submit-order does.
 */
export class DeliveryApi extends Construct {
  readonly api: apigw.RestApi;
  /** The first requester's key (the one the tooling uses when it names no requester). */
  readonly apiKey: apigw.IApiKey;
  /** Each requester's key, by requester name. */
  readonly requesterKeys: ReadonlyMap<string, apigw.IApiKey>;
  /** JSON of RequesterRegistry (requesters and their key ids): the handlers' list, and a stack output. */
  readonly requesterRegistry: string;
  /** Invoke URL of the stage, without a trailing slash. */
  readonly url: string;
  readonly submitDelivery: LambdaFunction;
  readonly getDelivery: LambdaFunction;
  /** The operators' routes (AWS_IAM): the deliveries and their trails. */
  readonly operator: DeliveryOperatorRoutes;

  constructor(scope: Construct, id: string, props: DeliveryApiProps) {
    super(scope, id);
    const common = {
      metricsNamespace: CHOREOGRAPHY_METRICS_NAMESPACE,
    };
    this.submitDelivery = new LambdaFunction(this, 'SubmitDelivery', {
      ...common,
      handler: 'choreography/handlers/submit-delivery',
      description:
        'POST /deliveries: validates and accepts a delivery, recording DeliveryRequested in its change log',
      serviceName: ServiceName.Ingestion,
      environment: {
        [ChoreographyEnvKey.TableName]: props.table.tableName,
        [ChoreographyEnvKey.Settings]: JSON.stringify(props.settings),
      },
    });
    props.table.grant(this.submitDelivery.function, 'dynamodb:GetItem', 'dynamodb:PutItem');

    this.getDelivery = new LambdaFunction(this, 'GetDelivery', {
      ...common,
      handler: 'choreography/handlers/get-delivery',
      description: 'GET /deliveries/{deliveryId}: the status and history of a delivery',
      serviceName: ServiceName.Ingestion,
      environment: { [ChoreographyEnvKey.TableName]: props.table.tableName },
    });
    props.table.grant(this.getDelivery.function, 'dynamodb:GetItem');

    const { api, apiKey, namedKeys, parameterValidator, url } = createKeyedRestApi(this, {
      description: 'Drone delivery requests (choreography)',
      clients: 'Delivery requesters',
      keyNames: props.requesters,
      // The key the one shared requester key was: its holders keep it, as the first requester's.
      firstNameKeepsSharedKey: true,
      throttle: props.throttle,
      rateLimitPerIp: props.rateLimitPerIp,
      bodyValidation:
        'POST bodies are validated by submit-delivery against the shared strict zod contract (field-level 400 errors, 413 past the size limit); an API Gateway model would duplicate it and drift. Path parameters are validated by the gateway.',
    });
    this.api = api;
    this.apiKey = apiKey;
    this.requesterKeys = namedKeys;
    this.url = url;
    const registry: RequesterRegistry = props.requesters.map((name) => ({
      requesterId: name,
      apiKeyId: (namedKeys.get(name) as apigw.IApiKey).keyId,
    }));
    this.requesterRegistry = Stack.of(this).toJsonString(registry);
    for (const handler of [this.submitDelivery, this.getDelivery]) {
      handler.function.addEnvironment(ChoreographyEnvKey.RequesterRegistry, this.requesterRegistry);
    }
    const deliveries = api.root.addResource(DeliveryApiRoute.Deliveries);
    deliveries.addMethod('POST', new apigw.LambdaIntegration(this.submitDelivery.function));
    deliveries
      .addResource(`{${DeliveryApiRoute.DeliveryIdParameter}}`)
      .addMethod('GET', new apigw.LambdaIntegration(this.getDelivery.function), {
        requestParameters: { [`method.request.path.${DeliveryApiRoute.DeliveryIdParameter}`]: true },
        requestValidator: parameterValidator,
      });
    this.operator = new DeliveryOperatorRoutes(this, 'Operator', {
      api,
      url,
      parameterValidator,
      tables: props.serviceTables,
    });
  }
}
