/**
 * The operator routes' client for the CLI: every request signed with SigV4 (service execute-api),
 * with the local runtime's operator identity (target.json) or, on AWS, the standard credential
 * chain. The API authenticates the signer; on AWS its IAM policy must allow execute-api:Invoke.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import {
  type OperatorAction,
  type OperatorActionRequest,
  type OperatorActionResultBody,
  type OperatorOrderDetailBody,
  type OperatorOrderListBody,
  OperatorRoute,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { SignedApi, type SigningCredentials } from './signed-api';

export interface OperatorEndpoint {
  /** The stage URL (ApiUrl output, or the local API's url), with or without a trailing slash. */
  readonly apiUrl: string;
  readonly region: string;
  readonly credentials: SigningCredentials;
}

export interface ApiAnswer<T> {
  readonly status: number;
  readonly body: T;
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
    this.api = new SignedApi(endpoint.apiUrl, endpoint.region, endpoint.credentials);
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

  act(
    action: OperatorAction,
    orderId: string,
    request: OperatorActionRequest,
  ): Promise<ApiAnswer<OperatorActionResultBody>> {
    const path = action === 'retry' ? OperatorRoute.retry(orderId) : OperatorRoute.cancel(orderId);
    return this.send('POST', path, {}, JSON.stringify(request));
  }

  private async send<T>(
    method: string,
    route: string,
    query: Record<string, string> = {},
    body?: string,
  ): Promise<ApiAnswer<T>> {
    const answer = await this.api.send(method, route, { query, ...(body !== undefined && { body }) });
    let parsed: unknown = answer.text;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      // Not JSON (a gateway error page): shown as text.
    }
    return { status: answer.status, body: parsed as T };
  }
}
