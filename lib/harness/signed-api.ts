/**
 * The one client of a REST API's AWS_IAM methods (the operator routes), every request signed with
 * SigV4 (service execute-api, lambdas/shared/signed-request.ts) as the identity it is given: a local
 * user's keys (target.json), or on AWS whoever the standard credential chain finds. The CLI's typed
 * operator client (operator-client.ts), the console's local backend and the chaos campaign all send
 * through it; it gives the raw answer and its headers (Retry-After).
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { sendSigned } from '../../lambdas/shared/signed-request';
import { asActivity, type RuntimeClock } from '../local-runtime';

/** Credentials, or a provider of them, as the signer takes them. */
export type SigningCredentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

export interface SignedAnswer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

export interface SignedRequestOptions {
  /** Query string parameters. @default - none */
  readonly query?: Readonly<Record<string, string>>;
  /** A JSON body. @default - none */
  readonly body?: string;
}

const REQUEST_TIMEOUT_MILLIS = 30_000;

export class SignedApi {
  private readonly signer: SignatureV4;
  private readonly base: string;

  /**
   * @param apiBase the stage URL, with or without a trailing slash
   * @param clock the run's, when the sender is one of its actors: on a seeded one each request
   *   waits its turn (asActivity); the signature stays the machine's time, which the local runtime
   *   accepts besides its own
   */
  constructor(
    apiBase: string,
    region: string,
    credentials: SigningCredentials,
    private readonly clock?: RuntimeClock,
  ) {
    this.base = apiBase.replace(/\/+$/, '');
    this.signer = new SignatureV4({ service: 'execute-api', region, credentials, sha256: Sha256 });
  }

  /** Sends one signed request to `route` (a path starting with `/`). */
  async send(method: string, route: string, options: SignedRequestOptions = {}): Promise<SignedAnswer> {
    return asActivity(this.clock, `client ${method} ${route}`, async (headers) => {
      const response = await sendSigned(this.signer, {
        method,
        url: `${this.base}${route}`,
        ...(options.query !== undefined && { query: { ...options.query } }),
        ...(options.body !== undefined && { body: options.body }),
        timeoutMillis: REQUEST_TIMEOUT_MILLIS,
        unsignedHeaders: headers,
      });
      return { status: response.status, text: await response.text(), headers: response.headers };
    });
  }
}
