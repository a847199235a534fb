/**
 * What one run of the runtime leaves for the least-privilege report (unused-access.ts): what the
 * account granted (every Allow statement of every identity policy) and what was used, with the
 * denials. Written as `usage.json` in the runtime's IAM record directory when it stops, and read
 * back by `npm run iam:report`, which merges runs (the acceptance suite, a chaos campaign).
 */
import type { AccessUsageSnapshot } from './access-usage';
import type { IamMode } from './authorizer';
import type { GrantedStatement } from './local-account';

export interface IamUsageRecord {
  readonly mode: IamMode;
  readonly startedAt: string;
  readonly stoppedAt?: string;
  /** By role or user ARN: its Allow statements. */
  readonly grants: Readonly<Record<string, readonly GrantedStatement[]>>;
  readonly usage: AccessUsageSnapshot;
}

/** The files a runtime's IAM record directory holds. */
export const IAM_RECORD_FILES = {
  /** One JSON DenialRecord per line, appended as denials happen (read while the runtime runs). */
  denials: 'denials.jsonl',
  /** The IamUsageRecord, written when the runtime stops. */
  usage: 'usage.json',
} as const;
