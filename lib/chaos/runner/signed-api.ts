/**
 * Requests to the REST API's AWS_IAM methods (the operator routes), signed with SigV4 (service
 * execute-api) as a local identity. The CLI has its own client (bin/operator-client.ts, typed
 * answers); both sign with lambdas/shared/signed-request.ts. The campaign cannot import bin/
 * (composition roots), and needs only the raw answer and its headers (Retry-After).
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { sendSigned } from '../../../lambdas/shared/signed-request';

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
    const response = await sendSigned(this.signer, {
      method,
      url: `${this.apiBase}${route}`,
      ...(body !== undefined && { body }),
      timeoutMillis: REQUEST_TIMEOUT_MILLIS,
    });
    return { status: response.status, text: await response.text(), headers: response.headers };
  }
}
