/**
 * The least-privilege report: for each role (and user) of the account, what its identity policies
 * grant and what of it the recorded runs used, like IAM Access Analyzer's unused access findings
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/access-analyzer-findings.html#access-analyzer-findings-unused):
 * statements that never allowed a request, and actions named by a statement that were never called.
 * A wildcard pattern (`sqs:*`) is shown with the actions used under it, since what it grants beyond
 * them is the unused part. Action-level use is per principal (an action counts as used if the
 * principal called it on any resource); statement-level use is exact (the evaluator counts each
 * statement that allowed a request).
 */

import { mergeAccessUsage, statementKey } from './access-usage';
import { globMatches } from './arn';
import type { GrantedStatement } from './local-account';
import type { IamUsageRecord } from './usage-record';

export interface StatementUse {
  readonly policy: string;
  readonly sid: string;
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly conditional: boolean;
  /** Requests this statement allowed in the runs. */
  readonly allowedRequests: number;
  /** Actions it names explicitly (no wildcard) that the principal never called. */
  readonly unusedActions: readonly string[];
  /** Its wildcard patterns, each with the actions the principal called under it. */
  readonly wildcards: ReadonlyArray<{ readonly pattern: string; readonly used: readonly string[] }>;
}

export interface PrincipalAccess {
  readonly principal: string;
  readonly statements: readonly StatementUse[];
  /** Actions the principal was allowed, lower-cased. */
  readonly usedActions: readonly string[];
}

export interface UnusedAccessReport {
  readonly runs: number;
  readonly principals: readonly PrincipalAccess[];
  /** Denials (and would-be denials) recorded in the runs, by message, with a count. */
  readonly denials: Readonly<Record<string, number>>;
}

function mergeGrants(records: readonly IamUsageRecord[]): Map<string, GrantedStatement[]> {
  const merged = new Map<string, Map<string, GrantedStatement>>();
  for (const record of records) {
    for (const [principal, statements] of Object.entries(record.grants)) {
      const byKey = merged.get(principal) ?? new Map<string, GrantedStatement>();
      for (const statement of statements) byKey.set(statementKey(statement), statement);
      merged.set(principal, byKey);
    }
  }
  return new Map([...merged].map(([principal, byKey]) => [principal, [...byKey.values()]]));
}

export function unusedAccessReport(records: readonly IamUsageRecord[]): UnusedAccessReport {
  const usage = mergeAccessUsage(records.map((record) => record.usage));
  const grants = mergeGrants(records);
  const principals = [...grants]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([principal, statements]): PrincipalAccess => {
      const used = Object.keys(usage.actions[principal] ?? {}).sort();
      return {
        principal,
        usedActions: used,
        statements: statements.map((statement) => {
          const explicit = statement.notAction
            ? []
            : statement.actions.filter((action) => !/[*?]/.test(action));
          const patterns = statement.notAction
            ? statement.actions.map((action) => `NotAction ${action}`)
            : statement.actions.filter((action) => /[*?]/.test(action));
          return {
            policy: statement.policy,
            sid: statement.sid,
            actions: statement.actions,
            resources: statement.resources,
            conditional: statement.conditional,
            allowedRequests: usage.statements[statementKey(statement)] ?? 0,
            unusedActions: explicit.filter((action) => !used.includes(action.toLowerCase())),
            wildcards: patterns.map((pattern) => ({
              pattern,
              used: statement.notAction
                ? used.filter(
                    (action) => !statement.actions.some((excluded) => globMatches(excluded, action, true)),
                  )
                : used.filter((action) => globMatches(pattern, action, true)),
            })),
          };
        }),
      };
    });
  return { runs: records.length, principals, denials: usage.denials };
}
