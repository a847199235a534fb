/**
 * IAM denials of the app, watched while the acceptance suite runs against the local runtime: a grant
 * missing from the templates makes the app's function or state machine get AccessDenied (as it
 * would on AWS), and the scenario waiting on it fails at once, naming the denial, instead of timing
 * out on an order that never moves. The runtime records each denial in its IAM record directory
 * (global-setup.ts sets it; ACCEPTANCE_IAM_DENIALS names the file); only the app's own callers
 * count (role sessions and service principals): a scenario's deliberate probes are a user's (a client
 * reading another client's queue). Against AWS or LocalStack there is no file and nothing is watched.
 */
import { existsSync, readFileSync } from 'node:fs';

export const IAM_DENIALS_ENV = 'ACCEPTANCE_IAM_DENIALS';

interface RecordedDenial {
  readonly principalKind: string;
  readonly message: string;
}

/** The app's denials recorded so far (role sessions and services), oldest first. */
export function appDenials(file = process.env[IAM_DENIALS_ENV]): string[] {
  if (!file || !existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RecordedDenial)
    .filter((denial) => denial.principalKind === 'role-session' || denial.principalKind === 'service')
    .map((denial) => denial.message);
}

/** An error naming the app's denials (each once), for a scenario that met them. */
export class AppDeniedError extends Error {
  constructor(denials: readonly string[]) {
    super(
      `IAM denied the app ${denials.length} request(s) (a grant missing from the templates): ${[...new Set(denials)].join(' | ')}`,
    );
    this.name = 'AppDeniedError';
  }
}

/**
 * Watches from now on: `check()` throws AppDeniedError once the app has been denied since the watch
 * began. Waits call it on every poll.
 */
export function watchAppDenials(): { check(): void; since(): string[] } {
  const start = appDenials().length;
  const since = () => appDenials().slice(start);
  return {
    since,
    check() {
      const denied = since();
      if (denied.length > 0) throw new AppDeniedError(denied);
    },
  };
}
