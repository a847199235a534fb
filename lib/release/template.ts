/**
 * A CloudFormation template as the upgrade check reads it: plain JSON, resources by logical id.
 * Only what the check reads is typed; everything else passes through untouched.
 */

/** One resource of a template. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
  readonly Metadata?: Readonly<Record<string, unknown>>;
  readonly [attribute: string]: unknown;
}

/** A template: resources by logical id, and any other section. */
export interface CfnTemplate {
  readonly Resources?: Readonly<Record<string, CfnResource>>;
  readonly Conditions?: Readonly<Record<string, unknown>>;
  readonly [section: string]: unknown;
}
