/**
 * The operator routes' typed clients, of the orders API (OperatorClient) and of the delivery API
 * (DeliveryOperatorClient), for the CLIs, the console's local backend and the tests: every request
 * signed with SigV4 (service execute-api, signed-api.ts), with the local runtime's operator identity
 * (target.json) or, on AWS, the standard credential chain. The API authenticates the signer; on AWS
 * its IAM policy must allow execute-api:Invoke (the stack's OperatorAccess policy).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import {
  type DeliveryDetailBody,
  type DeliveryListBody,
  type DeliveryStatus,
  OperatorDeliveryRoute,
} from '../../lambdas/choreography/contracts';
import {
  type OperatorAction,
  type OperatorActionRequest,
  type OperatorActionResultBody,
  type OperatorOrderDetailBody,
  type OperatorOrderListBody,
  OperatorRoute,
  type OperatorWorkflowBody,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import type { RuntimeClock } from '../local-runtime';
import { SignedApi, type SigningCredentials } from './signed-api';

export interface OperatorEndpoint {
  /** The stage URL (ApiUrl output, or the local API's url), with or without a trailing slash. */
  readonly apiUrl: string;
  readonly region: string;
  readonly credentials: SigningCredentials;
  /**
   * The run's clock when the caller is one of its actors (the campaign's operator): on a seeded
   * clock each request waits its turn there (SignedApi). @default - requests go at once
   */
  readonly clock?: RuntimeClock;
}

export interface ApiAnswer<T> {
  readonly status: number;
  readonly body: T;
  /** The answer's Retry-After (a 409 on an order in flight, a 429), in milliseconds. */
  readonly retryAfterMillis?: number;
}

/** The region of an AWS invoke URL (`https://<id>.execute-api.<region>.amazonaws.com/<stage>`). */
export function regionOfApiUrl(apiUrl: string): string | undefined {
  return /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(apiUrl)?.[1];
}

/** On AWS: the ApiUrl output, its region, and whoever the standard credential chain finds. */
export function awsEndpoint(apiUrl: string, region = process.env.AWS_REGION): OperatorEndpoint {
  const resolved = region ?? regionOfApiUrl(apiUrl);
  if (!resolved) throw new Error(`Cannot tell the region of ${apiUrl}: set AWS_REGION`);
  return { apiUrl, region: resolved, credentials: defaultProvider() };
}

export class OperatorClient {
  private readonly api: SignedApi;

  constructor(endpoint: OperatorEndpoint) {
    this.api = new SignedApi(endpoint.apiUrl, endpoint.region, endpoint.credentials, endpoint.clock);
  }

  list(query: { state: string; limit?: number; cursor?: string }): Promise<ApiAnswer<OperatorOrderListBody>> {
    const params: Record<string, string> = { state: query.state };
    if (query.limit !== undefined) params.limit = String(query.limit);
    if (query.cursor !== undefined) params.cursor = query.cursor;
    return this.send('GET', OperatorRoute.orders, params);
  }

  show(orderId: string): Promise<ApiAnswer<OperatorOrderDetailBody>> {
    return this.send('GET', OperatorRoute.order(orderId));
  }

  /** The latest attempt's definition and the states it entered. */
  workflow(orderId: string): Promise<ApiAnswer<OperatorWorkflowBody>> {
    return this.send('GET', OperatorRoute.workflow(orderId));
  }

  act(
    action: OperatorAction,
    orderId: string,
    request: OperatorActionRequest,
  ): Promise<ApiAnswer<OperatorActionResultBody>> {
    const path = action === 'retry' ? OperatorRoute.retry(orderId) : OperatorRoute.cancel(orderId);
    return this.send('POST', path, {}, JSON.stringify(request));
  }

  private send<T>(method: string, route: string, query: Record<string, string> = {}, body?: string) {
    return jsonAnswer<T>(this.api, method, route, query, body);
  }
}

/** The delivery API's operator routes: the deliveries of the read model, and one delivery's trail. */
export class DeliveryOperatorClient {
  private readonly api: SignedApi;

  constructor(endpoint: OperatorEndpoint) {
    this.api = new SignedApi(endpoint.apiUrl, endpoint.region, endpoint.credentials, endpoint.clock);
  }

  /** Newest first, at most DELIVERY_LIST_MAX, of one status or of all. */
  list(status?: DeliveryStatus): Promise<ApiAnswer<DeliveryListBody>> {
    return jsonAnswer(
      this.api,
      'GET',
      OperatorDeliveryRoute.deliveries,
      status === undefined ? {} : { status },
    );
  }

  /** The delivery's status and its trail across services; 404 when no service knows it. */
  show(deliveryId: string): Promise<ApiAnswer<DeliveryDetailBody>> {
    return jsonAnswer(this.api, 'GET', OperatorDeliveryRoute.delivery(deliveryId));
  }
}

/** Sends one signed request and parses its answer as JSON (or keeps the text: a gateway error page). */
async function jsonAnswer<T>(
  api: SignedApi,
  method: string,
  route: string,
  query: Record<string, string> = {},
  body?: string,
): Promise<ApiAnswer<T>> {
  const answer = await api.send(method, route, { query, ...(body !== undefined && { body }) });
  let parsed: unknown = answer.text;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    // Not JSON (a gateway error page): shown as text.
  }
  const retryAfter = Number(answer.headers.get('retry-after'));
  return {
    status: answer.status,
    body: parsed as T,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 && { retryAfterMillis: retryAfter * 1000 }),
  };
}
