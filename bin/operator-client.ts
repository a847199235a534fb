/**
 * The operator routes' client for the CLI: every request signed with SigV4 (service execute-api),
 * with the local runtime's operator identity (target.json) or, on AWS, the standard credential
 * chain. The API authenticates the signer; on AWS its IAM policy must allow execute-api:Invoke.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  type OperatorAction,
  type OperatorActionRequest,
  type OperatorActionResultBody,
  type OperatorOrderDetailBody,
  type OperatorOrderListBody,
  OperatorRoute,
} from '../lambdas/scheduler-agent-supervisor/contracts';
import { sendSigned } from '../lambdas/shared/signed-request';

/** Credentials, or a provider of them, as the signer takes them. */
type Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

export interface OperatorEndpoint {
  /** The stage URL (ApiUrl output, or the local API's url), with or without a trailing slash. */
  readonly apiUrl: string;
  readonly region: string;
  readonly credentials: Credentials;
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
  private readonly signer: SignatureV4;
  private readonly base: string;

  constructor(endpoint: OperatorEndpoint) {
    this.base = endpoint.apiUrl.replace(/\/+$/, '');
    this.signer = new SignatureV4({
      service: 'execute-api',
      region: endpoint.region,
      credentials: endpoint.credentials,
      sha256: Sha256,
    });
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
    const response = await sendSigned(this.signer, {
      method,
      url: `${this.base}${route}`,
      query,
      ...(body !== undefined && { body }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON (a gateway error page): shown as text.
    }
    return { status: response.status, body: parsed as T };
  }
}
