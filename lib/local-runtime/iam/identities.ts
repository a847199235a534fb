/**
 * Local IAM users, and SigV4 verification of the requests any local credential signs. An access key
 * id of a user names `arn:aws:iam::<account>:user/<access key id>`; its secret is random (crypto),
 * generated once per data directory and kept there (like the API keys, ../apigateway/api-keys.ts), in memory
 * without one. One instance per runtime (the runtime context's `identities`): two would overwrite
 * each other's file. Which principal a credential stands for, and what it may do, is the IAM
 * module's (iam/credential-registry.ts, iam/authorizer.ts).
 *
 * What verifySigV4 checks: the signature, recomputed with @smithy/signature-v4 for the given service
 * in the runtime's region, over the request as received (method, path, query, signed headers, body
 * hash), with the secret of the access key it names, within 15 minutes of clock skew, and, for
 * temporary credentials, the session token (`x-amz-security-token`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { PersistedSecrets } from './persisted-secrets';

/** An identity's credentials and the principal it stands for. */
export interface LocalIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** `arn:aws:iam::<account>:user/<access key id>` */
  readonly userArn: string;
}

const ACCESS_KEY_ID_PATTERN = /^[A-Za-z0-9_+=,.@-]{1,64}$/;

export class LocalIdentities {
  private readonly secrets: PersistedSecrets;

  /** `dataDir` keeps the secrets in `<dataDir>/iam/identities.json`; without it they live in memory. */
  constructor(
    dataDir: string | undefined,
    private readonly accountId: string,
  ) {
    this.secrets = new PersistedSecrets(
      dataDir ? join(dataDir, 'iam', 'identities.json') : undefined,
      'local identities',
    );
  }

  /** The identity of an access key id, created (with a new secret) the first time it is asked for. */
  identity(accessKeyId: string): LocalIdentity {
    if (!ACCESS_KEY_ID_PATTERN.test(accessKeyId)) {
      throw new Error(`'${accessKeyId}' cannot name a local IAM user (1-64 of A-Z a-z 0-9 _+=,.@-)`);
    }
    const secret = this.secrets.of(accessKeyId);
    return { accessKeyId, secretAccessKey: secret, userArn: this.userArnOf(accessKeyId) };
  }

  /** The identity of a known access key id only. */
  known(accessKeyId: string): LocalIdentity | undefined {
    const secret = this.secrets.known(accessKeyId);
    return secret === undefined
      ? undefined
      : { accessKeyId, secretAccessKey: secret, userArn: this.userArnOf(accessKeyId) };
  }

  private userArnOf(accessKeyId: string): string {
    return `arn:aws:iam::${this.accountId}:user/${accessKeyId}`;
  }
}

/** A request as the emulator received it. */
export interface ReceivedRequest {
  readonly method: string;
  /** The path as sent, percent-encoded, without the query. */
  readonly rawPath: string;
  readonly query: URLSearchParams;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/**
 * Why a signature was refused: each service words its own answer. `unknown`: the access key names no
 * credential of the account; `token`: a temporary credential's session token is missing or wrong.
 */
export type SigV4Refusal = 'missing' | 'unknown' | 'token' | 'mismatch' | 'expired' | 'scope';

/** What verifySigV4 needs of a credential. */
export interface VerifiableCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Temporary credentials only: the token the request must carry. */
  readonly sessionToken?: string;
}

export type SigV4Verdict<C extends VerifiableCredentials = LocalIdentity> =
  | { readonly ok: true; readonly identity: C }
  | { readonly ok: false; readonly reason: SigV4Refusal; readonly message: string };

/** API Gateway's answers (403). */
export const SIGV4_MESSAGES = {
  missing: 'Missing Authentication Token',
  unknown: 'The security token included in the request is invalid.',
  token: 'The security token included in the request is invalid.',
  mismatch:
    'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  expired: 'Signature expired: the request time is more than 15 minutes from the current time.',
  scope: 'Credential should be scoped to a valid region and service execute-api.',
} as const;

/** The clock skew AWS allows a signed request (API Gateway and SQS alike). */
const MAX_SKEW_MILLIS = 15 * 60 * 1000;
const AUTHORIZATION_PATTERN =
  /^AWS4-HMAC-SHA256 Credential=([^/\s,]+)\/(\d{8})\/([^/\s,]+)\/([^/\s,]+)\/aws4_request, ?SignedHeaders=([a-z0-9;_.-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE_PATTERN = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/**
 * Verifies the SigV4 signature of a request: the access key must name a known identity, the scope
 * the runtime's region and the service, and the signature must be the one its secret gives for the
 * request as received. Refusals carry API Gateway's messages (SIGV4_MESSAGES; `scope` names the
 * service); other services answer from the reason.
 */
export async function verifySigV4<C extends VerifiableCredentials = LocalIdentity>(
  request: ReceivedRequest,
  identities: { known(accessKeyId: string): C | undefined; signingTimes?(): readonly number[] },
  options: {
    readonly region: string;
    /** The signing name the scope must carry. @default 'execute-api' */
    readonly service?: string;
    readonly now?: number;
  },
): Promise<SigV4Verdict<C>> {
  const signingName = options.service ?? 'execute-api';
  const refuse = (reason: SigV4Refusal): SigV4Verdict<C> => ({
    ok: false,
    reason,
    message:
      reason === 'scope' ? SIGV4_MESSAGES.scope.replace('execute-api', signingName) : SIGV4_MESSAGES[reason],
  });
  const authorization = request.headers.authorization;
  if (authorization === undefined || authorization === '') return refuse('missing');
  const match = AUTHORIZATION_PATTERN.exec(authorization);
  if (!match) return refuse('mismatch');
  const [, accessKeyId = '', , region, service, signedHeaderList = '', signature = ''] = match;
  if (region !== options.region || service !== signingName) return refuse('scope');
  const identity = identities.known(accessKeyId);
  if (identity === undefined) return refuse('unknown');
  if ((request.headers['x-amz-security-token'] ?? undefined) !== identity.sessionToken)
    return refuse('token');
  const amzDate = request.headers['x-amz-date'] ?? '';
  const signedHeaders = signedHeaderList.split(';');
  if (!AMZ_DATE_PATTERN.test(amzDate) || !signedHeaders.includes('host')) return refuse('mismatch');
  const signingDate = new Date(amzDate.replace(AMZ_DATE_PATTERN, '$1-$2-$3T$4:$5:$6Z'));
  // wall clock: a verifier given neither a time nor signing times
  const times = options.now !== undefined ? [options.now] : (identities.signingTimes?.() ?? [Date.now()]);
  if (times.every((time) => Math.abs(time - signingDate.getTime()) > MAX_SKEW_MILLIS)) {
    return refuse('expired');
  }
  // The signer trusts a payload hash header as given: check it against the body received.
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (payloadHash !== undefined && payloadHash !== createHash('sha256').update(request.body).digest('hex')) {
    return refuse('mismatch');
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) return refuse('mismatch');
    headers[name] = value;
  }
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(request.query.keys())) {
    const values = request.query.getAll(key);
    query[key] = values.length === 1 ? (values[0] as string) : values;
  }
  let path: string;
  try {
    path = request.rawPath.split('/').map(decodeURIComponent).join('/');
  } catch {
    return refuse('mismatch');
  }
  const signer = new SignatureV4({
    service: signingName,
    region: options.region,
    credentials: { accessKeyId: identity.accessKeyId, secretAccessKey: identity.secretAccessKey },
    sha256: Sha256,
    // Sign exactly the headers the caller signed: no payload hash header of our own.
    applyChecksum: false,
  });
  const resigned = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: (headers.host ?? '').split(':')[0] ?? '',
      path,
      query,
      headers,
      body: request.body.length > 0 ? request.body : undefined,
    },
    { signingDate },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(resigned.headers.authorization ?? ''))?.[1] ?? '';
  const same =
    expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
  return same ? { ok: true, identity } : refuse('mismatch');
}
