/**
 * Requests to the REST API's AWS_IAM methods (the operator routes), signed with SigV4 (service
 * execute-api) as a local identity. The CLI has its own client (bin/operator-client.ts); the
 * campaign cannot import bin/ (composition roots), and needs only the raw answer and its headers
 * (Retry-After), so this is the few lines of signing it takes.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

export interface SignedAnswer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

const REQUEST_TIMEOUT_MILLIS = 30_000;

export class SignedApi {
  private readonly signer: SignatureV4;

  constructor(
    private readonly apiBase: string,
    region: string,
    credentials: { readonly accessKeyId: string; readonly secretAccessKey: string },
  ) {
    this.signer = new SignatureV4({
      service: 'execute-api',
      region,
      credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
      sha256: Sha256,
    });
  }

  async send(method: string, route: string, body?: string): Promise<SignedAnswer> {
    const url = new URL(`${this.apiBase}${route}`);
    const signed = await this.signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port !== '' && { port: Number(url.port) }),
      path: url.pathname,
      query: {},
      headers: {
        host: url.host,
        accept: 'application/json',
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body }),
    });
    // fetch sets Host itself, from the URL: the one signed.
    const headers = Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== 'host'));
    const response = await fetch(url, {
      method,
      headers,
      ...(body !== undefined && { body }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MILLIS),
    });
    return { status: response.status, text: await response.text(), headers: response.headers };
  }
}
