/**
 * HTTP client of the remote services. Turns every way a call can end into a RemoteOutcome (an
 * HTTP status, a network error, or no answer within the timeout) and never throws for them, so
 * the retry policy alone decides what happens next.
 *
 * With auth 'iam' each request is signed with SigV4 for service 'lambda' (a Lambda function URL
 * with AuthType AWS_IAM), using the default credential chain (the function's role on AWS).
 */

import { Sha256 } from '@aws-crypto/sha256-js';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { CORRELATION_ID_HEADER } from '../../shared/http';
import { IDEMPOTENCY_KEY_HEADER, REMOTE_AUTH_MODES, type RemoteAuthMode } from '../contracts';
import type { RemoteOutcome, RemoteService } from '../domain/ports';

export function parseRemoteAuth(value: string): RemoteAuthMode {
  const mode = REMOTE_AUTH_MODES.find((candidate) => candidate === value);
  if (mode === undefined) throw new Error(`REMOTE_AUTH must be 'iam' or 'none', got '${value}'`);
  return mode;
}

export interface HttpRemoteServiceOptions {
  /** Base URL of the service (a function URL); the operation path is appended to it. */
  readonly endpointUrl: string;
  readonly auth: RemoteAuthMode;
  /** Region of the function URL; required with auth 'iam'. */
  readonly region?: string;
}

export class HttpRemoteService implements RemoteService {
  private readonly baseUrl: URL;
  private readonly signer: SignatureV4 | undefined;

  constructor(options: HttpRemoteServiceOptions) {
    try {
      this.baseUrl = new URL(options.endpointUrl);
    } catch {
      throw new Error(`REMOTE_ENDPOINT_URL '${options.endpointUrl}' is not an absolute URL`);
    }
    if (options.auth === 'iam') {
      if (!options.region)
        throw new Error("Remote auth 'iam' needs the region of the function URL to sign for");
      this.signer = new SignatureV4({
        service: 'lambda',
        region: options.region,
        credentials: defaultProvider(),
        sha256: Sha256,
      });
    }
  }

  async post(request: Parameters<RemoteService['post']>[0]): Promise<RemoteOutcome> {
    const url = new URL(`${this.baseUrl.pathname.replace(/\/$/, '')}${request.path}`, this.baseUrl);
    const body = JSON.stringify(request.body);
    const headers = await this.headersFor(url, body, {
      'content-type': 'application/json',
      [IDEMPOTENCY_KEY_HEADER]: request.idempotencyKey,
      [CORRELATION_ID_HEADER]: request.correlationId,
    });
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(Math.max(1, request.timeoutMillis)),
      });
    } catch (error) {
      return outcomeOfFetchError(error, request.timeoutMillis);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      // Headers arrived but the body did not: the status alone is not a trustworthy answer.
      return outcomeOfFetchError(error, request.timeoutMillis);
    }
    return { kind: 'response', status: response.status, body: parseJson(text) };
  }

  private async headersFor(
    url: URL,
    body: string,
    headers: Record<string, string>,
  ): Promise<Record<string, string>> {
    if (!this.signer) return headers;
    const signed = await this.signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...headers, host: url.host },
      body,
    });
    // fetch sets Host itself (to the same value); it only had to be part of the signature.
    return Object.fromEntries(
      Object.entries(signed.headers).filter(([name]) => name.toLowerCase() !== 'host'),
    );
  }
}

function outcomeOfFetchError(error: unknown, timeoutMillis: number): RemoteOutcome {
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError')
    return { kind: 'timeout', afterMillis: timeoutMillis };
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return {
    kind: 'network-error',
    message: `${error instanceof Error ? error.message : String(error)}${cause}`,
  };
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
