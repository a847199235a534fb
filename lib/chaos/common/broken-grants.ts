/**
 * Broken grants: a copy of a synthesized assembly with one action removed from the identity
 * policies of one role, as a developer who forgot a grant would ship it. The local runtime enforces
 * IAM (lib/local-runtime/iam), so the app run from the copy must fail loudly with AccessDenied, and
 * the acceptance clients' waits must name the denial at once instead of timing out
 * (test/faults/broken-grants.test.ts). The sources stay correct: only the copy's template changes.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BrokenGrant {
  readonly name: string;
  readonly stack: string;
  /** The start of the role's logical id (`ChargePaymentAgentRole`). */
  readonly role: string;
  /** The action to remove from every statement of the role's policies (`states:SendTaskSuccess`). */
  readonly action: string;
}

/** One per wing: a call in the middle of the happy path. */
export const BROKEN_GRANTS = {
  /** The payment agent may no longer answer its step: every order stalls at ChargePayment. */
  ordersAgentCannotAnswer: {
    name: 'orders-agent-cannot-answer',
    stack: 'SchedulerAgentSupervisor',
    role: 'ChargePaymentAgentRole',
    action: 'states:SendTaskSuccess',
  },
  /** The package service may no longer write its table: every delivery stalls before it is scheduled. */
  packageCannotWrite: {
    name: 'package-cannot-write',
    stack: 'DroneDelivery',
    role: 'PackageServiceConsumerRole',
    action: 'dynamodb:PutItem',
  },
} as const satisfies Readonly<Record<string, BrokenGrant>>;

interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}
interface Statement {
  Action?: string | string[];
}

/** Copies `sourceDir` to `targetDir` with the grant removed; throws when it removed nothing. */
export function plantBrokenGrant(sourceDir: string, targetDir: string, grant: BrokenGrant): void {
  if (existsSync(targetDir))
    throw new Error(`${targetDir} exists: pick a fresh directory for the broken copy`);
  cpSync(sourceDir, targetDir, { recursive: true });
  const file = join(targetDir, `${grant.stack}.template.json`);
  const template = JSON.parse(readFileSync(file, 'utf8')) as Template;
  const roles = Object.keys(template.Resources).filter(
    (id) => id.startsWith(grant.role) && template.Resources[id]?.Type === 'AWS::IAM::Role',
  );
  if (roles.length !== 1)
    throw new Error(`${grant.name}: expected one role ${grant.role}*, found ${roles.length}`);
  let removed = 0;
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    const attached = JSON.stringify(resource.Properties?.Roles ?? []);
    if (!attached.includes(`"${roles[0]}"`)) continue;
    const document = resource.Properties?.PolicyDocument as { Statement: Statement[] };
    document.Statement = document.Statement.flatMap((statement) => {
      const actions = [statement.Action ?? []].flat();
      const kept = actions.filter((action) => action !== grant.action);
      removed += actions.length - kept.length;
      if (kept.length === actions.length) return [statement];
      return kept.length === 0 ? [] : [{ ...statement, Action: kept.length === 1 ? kept[0] : kept }];
    });
  }
  if (removed === 0) throw new Error(`${grant.name}: no policy of ${roles[0]} grants ${grant.action}`);
  writeFileSync(file, JSON.stringify(template));
}
