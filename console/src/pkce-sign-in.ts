/**
 * The steps of the deployed console's sign-in (sign-in.ts runs them in the browser): Cognito's
 * sign-in page with the OAuth 2.0 authorization code flow and PKCE (RFC 7636), for a public client
 * that holds no secret, and the identity pool that trades the id token for the operator's
 * temporary AWS credentials. No DOM here, so the tests run them as they are.
 */
import { fromCognitoIdentityPool } from '@aws-sdk/credential-provider-cognito-identity';
import type { DeployedConsoleConfig } from '../../lambdas/scheduler-agent-supervisor/contracts/console';
import type { OperatorCredentials } from './deployed-api';

const SCOPES = 'openid email';

/** base64url without padding (RFC 4648 §5), as PKCE and OAuth state use it. */
export function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A random PKCE code verifier: 32 random bytes, 43 characters. */
export function newCodeVerifier(): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The S256 code challenge of a verifier: base64url(SHA-256(verifier)). */
export async function codeChallengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

type SignInConfig = Pick<DeployedConsoleConfig, 'signInUrl' | 'userPoolClientId'>;

/** The sign-in page's URL for this verifier and state. */
export async function authorizeUrl(
  config: SignInConfig,
  redirectUri: string,
  verifier: string,
  state: string,
): Promise<string> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: config.userPoolClientId,
    redirect_uri: redirectUri,
    scope: SCOPES,
    state,
    code_challenge: await codeChallengeOf(verifier),
    code_challenge_method: 'S256',
  });
  return `${config.signInUrl}/oauth2/authorize?${query}`;
}

/** Trades the returned code for tokens at the token endpoint; the id token is what the identity pool takes. */
export async function exchangeCode(
  config: SignInConfig,
  redirectUri: string,
  code: string,
  verifier: string,
  send: typeof fetch = fetch,
): Promise<string> {
  const response = await send(`${config.signInUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: config.userPoolClientId,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }),
  });
  const body = (await response.json().catch(() => ({}))) as { id_token?: string; error?: string };
  if (!response.ok || body.id_token === undefined) {
    throw new Error(
      `Sign-in failed: the token endpoint answered ${response.status} ${body.error ?? ''}`.trim(),
    );
  }
  return body.id_token;
}

/** The identity pool's credentials for a signed-in operator (the SDK refreshes them while the id token is valid). */
export function operatorCredentials(
  config: Pick<DeployedConsoleConfig, 'region' | 'userPoolId' | 'identityPoolId'>,
  idToken: string,
): OperatorCredentials {
  return fromCognitoIdentityPool({
    identityPoolId: config.identityPoolId,
    logins: { [`cognito-idp.${config.region}.amazonaws.com/${config.userPoolId}`]: idToken },
    clientConfig: { region: config.region },
  });
}

/**
 * Cognito's sign-out: `/logout` with the app client and where to send the operator afterwards (a
 * URL registered as the client's sign-out URL). It ends Cognito's own session, so the next visit
 * asks for the password and MFA code again instead of signing in silently.
 */
export function signOutUrl(config: SignInConfig, logoutUri: string): string {
  const query = new URLSearchParams({ client_id: config.userPoolClientId, logout_uri: logoutUri });
  return `${config.signInUrl}/logout?${query}`;
}

/** Credentials the page can drop: after `revoke`, every call for them fails instead of signing. */
export interface RevocableCredentials {
  readonly credentials: OperatorCredentials;
  revoke(): void;
}

/** Wraps the identity pool's provider so signing out leaves the page nothing to sign with. */
export function revocable(provider: Exclude<OperatorCredentials, undefined>): RevocableCredentials {
  let current: typeof provider | undefined = provider;
  return {
    credentials: async () => {
      if (current === undefined) throw new Error('Signed out: sign in again to continue.');
      return typeof current === 'function' ? current() : current;
    },
    revoke: () => {
      current = undefined;
    },
  };
}
