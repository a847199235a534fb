/**
 * The shapes the local runtime reads of a CloudFormation template (its resources, outputs,
 * parameters, conditions, mappings) and the local environment its identities resolve against:
 * shared by the assembly reader (cloud-assembly.ts) and the per-type identity table
 * (resource-identities.ts), each of which would otherwise import the other.
 */

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly Condition?: string;
  readonly DependsOn?: string | string[];
}

export interface CfnTemplate {
  readonly Resources?: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { readonly Value: unknown; readonly Condition?: string }>;
  readonly Parameters?: Record<string, { readonly Default?: unknown; readonly Type?: string }>;
  readonly Conditions?: Record<string, unknown>;
  readonly Mappings?: Record<string, Record<string, Record<string, unknown>>>;
}

/** Where things live locally; supplied by the runtime once emulators and servers listen. */
export interface LocalEnvironment {
  readonly region: string;
  readonly accountId: string;
  /** Base URL of the SQS emulator (queue URLs are `${sqsEndpoint}/${accountId}/${name}`). */
  readonly sqsEndpoint: string;
  /** Base URL serving a REST API's stages, e.g. http://localhost:3000 */
  restApiBaseUrl(logicalId: string): string;
  /** URL of a Lambda function URL resource, ending with '/' like AWS. */
  functionUrl(logicalId: string): string;
  /**
   * ARN of a table's stream, known once the table exists (DynamoDB Local names streams after
   * their creation time). @default - a placeholder ARN, for resolution without an emulator
   */
  tableStreamArn?(logicalId: string): string;
}
