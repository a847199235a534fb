/**
 * Local IAM identities, and SigV4 verification of requests to AWS_IAM methods of the REST API
 * emulator. An access key id names a local IAM user, `arn:aws:iam::<account>:user/<access key id>`;
 * its secret is random (crypto), generated once per data directory and kept there (like the API
 * keys, ./api-keys.ts), in memory without one.
 *
 * What it checks: the signature, recomputed with @smithy/signature-v4 for service `execute-api` in
 * the runtime's region, over the request as received (method, path, query, signed headers, body
 * hash), with the secret of the access key it names, within API Gateway's 15 minutes of clock
 * skew. What it does NOT do: evaluate IAM policies. Any known identity may call any AWS_IAM
 * method; on AWS, the caller's policies must also allow execute-api:Invoke on the method.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

/** An identity's credentials and the principal it stands for. */
export interface LocalIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** `arn:aws:iam::<account>:user/<access key id>` */
  readonly userArn: string;
}

const ACCESS_KEY_ID_PATTERN = /^[A-Za-z0-9_+=,.@-]{1,64}$/;

/** 30 random bytes: 40 characters, as long as an AWS secret access key. */
function generateSecret(): string {
  return randomBytes(30).toString('base64url');
}

export class LocalIdentities {
  private readonly secrets: Record<string, string>;
  private readonly file: string | undefined;

  /** `dataDir` keeps the secrets in `<dataDir>/iam/identities.json`; without it they live in memory. */
  constructor(
    dataDir: string | undefined,
    private readonly accountId: string,
  ) {
    this.file = dataDir ? join(dataDir, 'iam', 'identities.json') : undefined;
    this.secrets = this.file ? readSecrets(this.file) : {};
  }

  /** The identity of an access key id, created (with a new secret) the first time it is asked for. */
  identity(accessKeyId: string): LocalIdentity {
    if (!ACCESS_KEY_ID_PATTERN.test(accessKeyId)) {
      throw new Error(`'${accessKeyId}' cannot name a local IAM user (1-64 of A-Z a-z 0-9 _+=,.@-)`);
    }
    let secret = this.secrets[accessKeyId];
    if (secret === undefined) {
      secret = generateSecret();
      this.secrets[accessKeyId] = secret;
      if (this.file) {
        mkdirSync(dirname(this.file), { recursive: true });
        // Readable by the developer only: the secrets guard the local IAM methods like real ones.
        writeFileSync(this.file, `${JSON.stringify(this.secrets, null, 2)}\n`, { mode: 0o600 });
      }
    }
    return { accessKeyId, secretAccessKey: secret, userArn: this.userArnOf(accessKeyId) };
  }

  /** The identity of a known access key id only. */
  known(accessKeyId: string): LocalIdentity | undefined {
    const secret = this.secrets[accessKeyId];
    return secret === undefined
      ? undefined
      : { accessKeyId, secretAccessKey: secret, userArn: this.userArnOf(accessKeyId) };
  }

  private userArnOf(accessKeyId: string): string {
    return `arn:aws:iam::${this.accountId}:user/${accessKeyId}`;
  }
}

function readSecrets(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${file} is not a JSON object of local identities; delete it to generate new ones`);
  }
  return Object.fromEntries(
    Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
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

export type SigV4Verdict =
  | { readonly ok: true; readonly identity: LocalIdentity }
  | { readonly ok: false; readonly message: string };

/** API Gateway's answers (403). */
export const SIGV4_MESSAGES = {
  missing: 'Missing Authentication Token',
  mismatch:
    'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  expired: 'Signature expired: the request time is more than 15 minutes from the current time.',
  scope: 'Credential should be scoped to a valid region and service execute-api.',
} as const;

/** API Gateway's allowed clock skew. */
const MAX_SKEW_MILLIS = 15 * 60 * 1000;
const AUTHORIZATION_PATTERN =
  /^AWS4-HMAC-SHA256 Credential=([^/\s,]+)\/(\d{8})\/([^/\s,]+)\/([^/\s,]+)\/aws4_request, ?SignedHeaders=([a-z0-9;_.-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE_PATTERN = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/**
 * Verifies the SigV4 signature of a request to an AWS_IAM method: the access key must name a known
 * identity, the scope the runtime's region and execute-api, and the signature must be the one its
 * secret gives for the request as received.
 */
export async function verifySigV4(
  request: ReceivedRequest,
  identities: Pick<LocalIdentities, 'known'>,
  options: { readonly region: string; readonly now?: number },
): Promise<SigV4Verdict> {
  const refuse = (message: string): SigV4Verdict => ({ ok: false, message });
  const authorization = request.headers.authorization;
  if (authorization === undefined || authorization === '') return refuse(SIGV4_MESSAGES.missing);
  const match = AUTHORIZATION_PATTERN.exec(authorization);
  if (!match) return refuse(SIGV4_MESSAGES.mismatch);
  const [, accessKeyId = '', , region, service, signedHeaderList = '', signature = ''] = match;
  if (region !== options.region || service !== 'execute-api') return refuse(SIGV4_MESSAGES.scope);
  const identity = identities.known(accessKeyId);
  if (identity === undefined) return refuse(SIGV4_MESSAGES.mismatch);
  const amzDate = request.headers['x-amz-date'] ?? '';
  const signedHeaders = signedHeaderList.split(';');
  if (!AMZ_DATE_PATTERN.test(amzDate) || !signedHeaders.includes('host'))
    return refuse(SIGV4_MESSAGES.mismatch);
  const signingDate = new Date(amzDate.replace(AMZ_DATE_PATTERN, '$1-$2-$3T$4:$5:$6Z'));
  if (Math.abs((options.now ?? Date.now()) - signingDate.getTime()) > MAX_SKEW_MILLIS) {
    return refuse(SIGV4_MESSAGES.expired);
  }
  // The signer trusts a payload hash header as given: check it against the body received.
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (payloadHash !== undefined && payloadHash !== createHash('sha256').update(request.body).digest('hex')) {
    return refuse(SIGV4_MESSAGES.mismatch);
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) return refuse(SIGV4_MESSAGES.mismatch);
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
    return refuse(SIGV4_MESSAGES.mismatch);
  }
  const signer = new SignatureV4({
    service: 'execute-api',
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
  return same ? { ok: true, identity } : refuse(SIGV4_MESSAGES.mismatch);
}
