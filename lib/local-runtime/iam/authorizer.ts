/**
 * The one place every local service asks whether a request is allowed: it evaluates the caller's
 * identity policies (LocalAccount) with the resource's policy the service passes in
 * (policy-evaluation.ts), records what was used (access-usage.ts), and words the denial as AWS does
 * (access-denied-message.ts); each service answers a denial with its own error code and status.
 *
 * Modes: `enforce` (the default everywhere: `npm start`, every test layer, both campaigns) refuses
 * what AWS would refuse; `report` (`npm start -- --iam report`) logs each would-be denial once and
 * allows the request, to find every missing grant of a change in one run. Either way each distinct
 * denial is written once to the runtime's log.
 */
import { accessDeniedMessage } from './access-denied-message';
import { AccessUsage } from './access-usage';
import type { LocalAccount } from './local-account';
import type { CompiledPolicy } from './policy-document';
import { type AuthorizationRequest, type DenialReason, evaluate } from './policy-evaluation';
import type { Principal } from './principals';

export type IamMode = 'enforce' | 'report';

export const IAM_MODES: readonly IamMode[] = ['enforce', 'report'];

export interface AuthorizeInput extends AuthorizationRequest {
  /** The resource's policy (queue policy, topic policy, function permissions, key policy). */
  readonly resourcePolicy?: CompiledPolicy;
  /** KMS keys: only the key policy allows, or enables identity policies to. @default false */
  readonly resourcePolicyRequired?: boolean;
}

export type Verdict =
  | {
      readonly allowed: true /** Report mode: the request would have been denied, and why. */;
      readonly wouldDeny?: string;
    }
  | { readonly allowed: false; readonly reason: DenialReason; readonly message: string };

/** One request denied (or, in report mode, that would have been), as the runtime records it. */
export interface DenialRecord {
  readonly at: string;
  readonly mode: IamMode;
  /** The caller as messages name it (a role session's ARN, a user's, the root's, a service's name). */
  readonly principal: string;
  readonly principalKind: Principal['kind'];
  readonly action: string;
  readonly resource: string;
  readonly message: string;
}

export interface AuthorizerOptions {
  readonly mode: IamMode;
  /** Hears of every denial (and would-be denial in report mode). @default - none */
  readonly onDenied?: (record: DenialRecord) => void;
  readonly region: string;
  /** Where report mode writes would-be denials (and enforce mode nothing). */
  readonly log: (line: string) => void;
  /** @default Date.now */
  readonly clock?: () => number;
}

export class Authorizer {
  readonly usage = new AccessUsage();
  private readonly reported = new Set<string>();

  constructor(
    readonly account: LocalAccount,
    private readonly options: AuthorizerOptions,
  ) {}

  get mode(): IamMode {
    return this.options.mode;
  }

  authorize(input: AuthorizeInput): Verdict {
    const evaluation = evaluate(
      input,
      {
        identity: this.account.policiesOf(input.principal),
        ...(input.resourcePolicy ? { resource: input.resourcePolicy } : {}),
        ...(input.resourcePolicyRequired ? { resourcePolicyRequired: true } : {}),
      },
      { region: this.options.region, now: (this.options.clock ?? Date.now)() },
    );
    if (evaluation.allowed) {
      this.usage.allowed(input.principal, input.action, input.resource, evaluation.allowedBy);
      return { allowed: true };
    }
    const message = accessDeniedMessage(input.principal, input.action, input.resource, evaluation.reason);
    this.usage.denied(message);
    this.options.onDenied?.({
      at: new Date((this.options.clock ?? Date.now)()).toISOString(),
      mode: this.options.mode,
      principal: input.principal.arn,
      principalKind: input.principal.kind,
      action: input.action,
      resource: input.resource,
      message,
    });
    const report = this.options.mode === 'report';
    // Each distinct denial once in the runtime's log: a missing grant shows where the developer looks.
    if (!this.reported.has(message)) {
      this.reported.add(message);
      this.options.log(report ? `iam report: would deny: ${message}` : `! iam: denied: ${message}`);
    }
    if (report) return { allowed: true, wouldDeny: message };
    return { allowed: false, reason: evaluation.reason, message };
  }

  /** Every request in turn (a transaction's items): the first denial, or allowed. */
  authorizeAll(inputs: readonly AuthorizeInput[]): Verdict {
    let wouldDeny: string | undefined;
    for (const input of inputs) {
      const verdict = this.authorize(input);
      if (!verdict.allowed) return verdict;
      wouldDeny ??= verdict.wouldDeny;
    }
    return wouldDeny === undefined ? { allowed: true } : { allowed: true, wouldDeny };
  }
}
