/**
 * One JSON request signed with SigV4 (an API Gateway AWS_IAM method, service execute-api), sent
 * with fetch: the signing both the operator CLI and the chaos campaign's operator need.
 */
import type { SignatureV4 } from '@smithy/signature-v4';

export interface SignedRequest {
  readonly method: string;
  /** Absolute URL, without the query (pass it in `query`: it is signed too). */
  readonly url: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** @default - no timeout */
  readonly timeoutMillis?: number;
  /** Sent as they are, not signed (the local runtime's clock activity). @default - none */
  readonly unsignedHeaders?: Readonly<Record<string, string>>;
}

export async function sendSigned(signer: SignatureV4, request: SignedRequest): Promise<Response> {
  const url = new URL(request.url);
  const query = request.query ?? {};
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const { body } = request;
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port !== '' && { port: Number(url.port) }),
    path: url.pathname,
    query: { ...query },
    headers: {
      host: url.host,
      accept: 'application/json',
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body }),
  });
  // fetch sets Host itself, from the URL: the one signed.
  const headers = {
    ...Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== 'host')),
    ...request.unsignedHeaders,
  };
  return fetch(url, {
    method: request.method,
    headers,
    ...(body !== undefined && { body }),
    ...(request.timeoutMillis !== undefined && { signal: AbortSignal.timeout(request.timeoutMillis) }),
  });
}
