/**
 * What the deployed operator console is told at deploy (console/README.md): the stack writes
 * it as CONSOLE_CONFIG_FILE next to the page's assets, and the page reads it at start. The local
 * backend answers `{ mode: 'local' }` at the same path, so one page serves both places.
 */

/** The file next to the page's index.html. */
export const CONSOLE_CONFIG_FILE = 'config.json';

export interface LocalConsoleConfig {
  /** The page talks to its same-origin backend, which signs server-side. */
  readonly mode: 'local';
}

/** One stack's alarms on the page: those whose names start with `namePrefix`, labelled with `wing`. */
export interface ConsoleAlarmSource {
  /** The app they watch, as the page labels them (`Orders`, `Deliveries`). */
  readonly wing: string;
  /** `<stack name>-`: every alarm of that stack, and only those (the role may read these only). */
  readonly namePrefix: string;
}

export interface DeployedConsoleConfig {
  /** The page signs operators in with Cognito and signs each operator call with SigV4 itself. */
  readonly mode: 'deployed';
  readonly region: string;
  /** The orders REST API's stage URL (the `ApiUrl` output), without a trailing slash. */
  readonly apiUrl: string;
  readonly userPoolId: string;
  /** The public app client of the sign-in page (authorization code with PKCE, no secret). */
  readonly userPoolClientId: string;
  /** `https://<prefix>.auth.<region>.amazoncognito.com`: the sign-in page and token endpoint. */
  readonly signInUrl: string;
  readonly identityPoolId: string;
  /** The alarms the page shows: this stack's first, then the other stacks' the deployment names. */
  readonly alarmSources: readonly ConsoleAlarmSource[];
  /**
   * The delivery API's stage URL (the DroneDelivery stack's `ApiUrl`), without a trailing slash,
   * when the console may read its operator routes: the Deliveries tab shows then.
   */
  readonly deliveryApiUrl?: string;
}

export type ConsoleConfig = LocalConsoleConfig | DeployedConsoleConfig;
