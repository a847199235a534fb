/**
 * IAM for the local runtime: policies compiled as IAM reads them, AWS's evaluation logic, the
 * principals and credentials of the local account, and the authorizer every emulated service asks.
 * See README.md in this folder for what is enforced and what is not.
 */
export { accessDeniedMessage } from './access-denied-message';
export { type AccessUsageSnapshot, mergeAccessUsage } from './access-usage';
export { type AuthorizeInput, Authorizer, IAM_MODES, type IamMode, type Verdict } from './authorizer';
export { type CallerCredentials, CredentialRegistry, type SigningCredentials } from './credential-registry';
export { LocalAccount, type LocalRole } from './local-account';
export { type CompiledPolicy, compilePolicy, type PolicyKind, type RequestContext } from './policy-document';
export { PolicyDocumentError } from './policy-document-error';
export { type AuthorizationRequest, type DenialReason, type Evaluation, evaluate } from './policy-evaluation';
export {
  anonymousPrincipal,
  type Principal,
  principalArnOf,
  roleSessionPrincipal,
  rootPrincipal,
  servicePrincipal,
  userPrincipal,
} from './principals';
export { createRuntimeIam, type RuntimeIam } from './runtime-iam';
