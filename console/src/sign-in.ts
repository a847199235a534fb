/**
 * The deployed console's sign-in in the browser: to Cognito's sign-in page and back (the steps are
 * in pkce-sign-in.ts). Tokens stay in memory only (a reload signs in again, silently while
 * Cognito's own session lasts); only the PKCE verifier and the state wait in sessionStorage across
 * the redirect, and are removed when it returns.
 */
import type { DeployedConsoleConfig } from '../../lambdas/scheduler-agent-supervisor/contracts/console';
import {
  authorizeUrl,
  base64Url,
  exchangeCode,
  newCodeVerifier,
  operatorCredentials,
  type RevocableCredentials,
  revocable,
  signOutUrl,
} from './pkce-sign-in';

const PENDING_KEY = 'operator-console-sign-in';

/** Where the sign-in page sends the operator back: the console itself (its registered callback URL). */
export function callbackUrlOf(location: Pick<Location, 'origin'>): string {
  return `${location.origin}/`;
}

/**
 * Signs the operator in: back from the sign-in page with a code and the state it was sent with,
 * the code is traded for the id token (and the code removed from the address bar); otherwise the
 * browser is sent to the sign-in page, and this never resolves.
 */
export async function signIn(config: DeployedConsoleConfig): Promise<RevocableCredentials> {
  const redirectUri = callbackUrlOf(window.location);
  const returned = new URLSearchParams(window.location.search);
  const pending = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const code = returned.get('code');
  if (code !== null && pending !== null) {
    const { verifier, state } = JSON.parse(pending) as { verifier: string; state: string };
    window.history.replaceState(null, '', `${redirectUri}${window.location.hash}`);
    if (returned.get('state') !== state)
      throw new Error('Sign-in failed: the answer is not for this sign-in (state differs).');
    const provider = operatorCredentials(config, await exchangeCode(config, redirectUri, code, verifier));
    if (provider === undefined) throw new Error('Sign-in failed: the identity pool gave no credentials.');
    return revocable(provider);
  }
  const verifier = newCodeVerifier();
  const state = base64Url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state }));
  window.location.assign(await authorizeUrl(config, redirectUri, verifier, state));
  return new Promise(() => {});
}

/**
 * Signs the operator out: the page drops its credentials (the id token lives only inside them) and
 * any pending sign-in, then Cognito ends its session and sends the browser back to the console
 * (the client's registered sign-out URL), which asks for a fresh sign-in.
 */
export function signOut(config: DeployedConsoleConfig, session: RevocableCredentials): void {
  session.revoke();
  sessionStorage.removeItem(PENDING_KEY);
  window.location.assign(signOutUrl(config, callbackUrlOf(window.location)));
}
