/**
 * What is stored of a released template, and what the current one is compared as: the template
 * without the values that change at every build while no deployed resource changes, and with the
 * few large documents that can never replace or lose anything reduced to a digest. Without it, every
 * build would differ from the release and the fixtures would be half a megabyte of state machine
 * definitions. It changes, and only changes:
 *
 * - Asset object keys. CDK names an asset's S3 object after its content hash (64 hex digits and an
 *   extension): a Lambda function's `Code.S3Key`, a layer's `Content.S3Key`, the console page's
 *   `SourceObjectKeys`. A new bundle is a new key at every build (and differs between `cdk synth`,
 *   which bundles, and an in-process synthesis, which does not), yet it only updates code in place;
 *   code is not state. Each becomes `<asset hash>` plus its extension.
 * - The CDK's own annotations: the `AWS::CDK::Metadata` resource (version reporting: the CDK version
 *   and constructs used, compressed) and its `CDKMetadataAvailable` condition, which `cdk synth`
 *   writes and an in-process synthesis does not; per-resource metadata keys `aws:cdk:*` (construct
 *   paths), `aws:asset:*` (local asset paths, with the hash) and `cdk_nag` (cdk-nag's reasoned
 *   acknowledgments). CloudFormation stores them and acts on none.
 * - Documents (DOCUMENT_PROPERTIES): a state machine's definition, a dashboard's body, an event
 *   schema's content become `sha256:<hex>` of their canonical JSON. A change still shows (as a
 *   changed digest); its details are in the code review, not here.
 *
 * Idempotent: a normalized template normalizes to itself.
 */
import { createHash } from 'node:crypto';
import type { CfnResource, CfnTemplate } from './template';

/** An asset object key as CDK writes it: the content hash and the file's extension. */
const ASSET_OBJECT_KEY = /^[0-9a-f]{64}(\.[A-Za-z0-9.]+)?$/;
export const ASSET_HASH_PLACEHOLDER = '<asset hash>';

const CDK_METADATA_TYPE = 'AWS::CDK::Metadata';
const CDK_METADATA_CONDITION = 'CDKMetadataAvailable';
const TOOL_METADATA_KEY = /^(aws:cdk:|aws:asset:|cdk_nag$)/;

/**
 * Properties stored as a digest. Each updates its resource without interruption, so a change to it
 * can neither replace the resource nor be refused as one (test/unit/release/normalize-template.test.ts
 * asks @aws-cdk/cloudformation-diff, whose update behaviours come from AWS's resource specification):
 * - DefinitionString: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-stepfunctions-statemachine.html
 * - DashboardBody: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cloudwatch-dashboard.html
 * - Content: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-eventschemas-schema.html
 */
export const DOCUMENT_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  'AWS::StepFunctions::StateMachine': ['DefinitionString'],
  'AWS::CloudWatch::Dashboard': ['DashboardBody'],
  'AWS::EventSchemas::Schema': ['Content'],
};

const DIGEST = /^sha256:[0-9a-f]{64}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with object keys sorted at every level: the same value always hashes the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `sha256:<hex>` of a document's canonical JSON; a digest already is one. */
export function documentDigest(value: unknown): string {
  if (typeof value === 'string' && DIGEST.test(value)) return value;
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}

function withoutAssetHashes(value: unknown): unknown {
  if (typeof value === 'string') {
    const key = ASSET_OBJECT_KEY.exec(value);
    return key ? `${ASSET_HASH_PLACEHOLDER}${key[1] ?? ''}` : value;
  }
  if (Array.isArray(value)) return value.map(withoutAssetHashes);
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutAssetHashes(item)]));
  }
  return value;
}

function normalizeResource(resource: CfnResource): CfnResource {
  const { Metadata, Properties, ...rest } = resource;
  const metadata = Object.entries(Metadata ?? {}).filter(([key]) => !TOOL_METADATA_KEY.test(key));
  const documents = DOCUMENT_PROPERTIES[resource.Type] ?? [];
  const properties =
    Properties &&
    Object.fromEntries(
      Object.entries(Properties).map(([key, value]) => [
        key,
        documents.includes(key) ? documentDigest(value) : value,
      ]),
    );
  return {
    ...rest,
    ...(properties && { Properties: properties }),
    ...(metadata.length > 0 && { Metadata: Object.fromEntries(metadata) }),
  };
}

/** The template as stored and compared (see the module's header); `template` is not changed. */
export function normalizeTemplate(template: CfnTemplate): CfnTemplate {
  const normalized: Record<string, unknown> = {};
  for (const [section, value] of Object.entries(withoutAssetHashes(template) as CfnTemplate)) {
    if (section === 'Resources') {
      const resources = Object.entries(value as Record<string, CfnResource>)
        .filter(([, resource]) => resource.Type !== CDK_METADATA_TYPE)
        .map(([id, resource]) => [id, normalizeResource(resource)]);
      normalized.Resources = Object.fromEntries(resources);
    } else if (section === 'Conditions') {
      const conditions = Object.entries(value as Record<string, unknown>).filter(
        ([name]) => name !== CDK_METADATA_CONDITION,
      );
      if (conditions.length > 0) normalized.Conditions = Object.fromEntries(conditions);
    } else {
      normalized[section] = value;
    }
  }
  return normalized as CfnTemplate;
}
