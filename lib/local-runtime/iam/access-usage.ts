/**
 * What each principal was allowed to do, and by which statement: the raw material of the
 * least-privilege report (like IAM Access Analyzer's unused access: granted but never used). The
 * Authorizer records every allowed request here; `snapshot()` is plain JSON, so runs (the acceptance
 * suite, a chaos campaign) can be saved and merged.
 */
import type { StatementReference } from './policy-evaluation';
import { type Principal, principalArnOf } from './principals';

export interface AccessUsageSnapshot {
  /** By principal (`aws:PrincipalArn`, or the service's name): action -> resources used. */
  readonly actions: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  /** `<policy>#<sid>` -> times it allowed a request. */
  readonly statements: Readonly<Record<string, number>>;
  /** Requests denied (or, in report mode, that would have been), by message, with a count. */
  readonly denials: Readonly<Record<string, number>>;
}

/** The key a statement reference is counted under. */
export function statementKey(reference: Pick<StatementReference, 'policy' | 'sid'>): string {
  return `${reference.policy}#${reference.sid}`;
}

export class AccessUsage {
  private readonly actions = new Map<string, Map<string, Set<string>>>();
  private readonly statements = new Map<string, number>();
  private readonly denials = new Map<string, number>();

  allowed(principal: Principal, action: string, resource: string, by: readonly StatementReference[]): void {
    const who = principalArnOf(principal);
    let byAction = this.actions.get(who);
    if (!byAction) {
      byAction = new Map();
      this.actions.set(who, byAction);
    }
    const lower = action.toLowerCase();
    let resources = byAction.get(lower);
    if (!resources) {
      resources = new Set();
      byAction.set(lower, resources);
    }
    resources.add(resource);
    for (const reference of by) {
      const key = statementKey(reference);
      this.statements.set(key, (this.statements.get(key) ?? 0) + 1);
    }
  }

  denied(message: string): void {
    this.denials.set(message, (this.denials.get(message) ?? 0) + 1);
  }

  snapshot(): AccessUsageSnapshot {
    return {
      actions: Object.fromEntries(
        [...this.actions].map(([who, byAction]) => [
          who,
          Object.fromEntries([...byAction].map(([action, resources]) => [action, [...resources].sort()])),
        ]),
      ),
      statements: Object.fromEntries(this.statements),
      denials: Object.fromEntries(this.denials),
    };
  }
}

/** Several snapshots as one (runs of the same app merged for the report). */
export function mergeAccessUsage(snapshots: readonly AccessUsageSnapshot[]): AccessUsageSnapshot {
  const actions: Record<string, Record<string, Set<string>>> = {};
  const statements: Record<string, number> = {};
  const denials: Record<string, number> = {};
  for (const snapshot of snapshots) {
    for (const [who, byAction] of Object.entries(snapshot.actions)) {
      const target = actions[who] ?? {};
      actions[who] = target;
      for (const [action, resources] of Object.entries(byAction)) {
        const set = target[action] ?? new Set<string>();
        target[action] = set;
        for (const resource of resources) set.add(resource);
      }
    }
    for (const [key, count] of Object.entries(snapshot.statements))
      statements[key] = (statements[key] ?? 0) + count;
    for (const [key, count] of Object.entries(snapshot.denials)) denials[key] = (denials[key] ?? 0) + count;
  }
  return {
    actions: Object.fromEntries(
      Object.entries(actions).map(([who, byAction]) => [
        who,
        Object.fromEntries(Object.entries(byAction).map(([action, set]) => [action, [...set].sort()])),
      ]),
    ),
    statements,
    denials,
  };
}
