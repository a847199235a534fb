/**
 * What a service asks IAM of one request, before it knows who calls: an action on a resource with
 * the request's own condition keys. Each service maps its operations to these (its iam-requests
 * module); the caller's principal is added once the signature is verified.
 */
import type { RequestContext } from './policy-document';

export interface RequestCheck {
  /** `service:Action` as IAM names it. */
  readonly action: string;
  /** The resource's ARN, or `*` for an action without resource-level permissions. */
  readonly resource: string;
  /** The request's own condition keys, lower-cased. @default - none */
  readonly context?: RequestContext;
}
