/**
 * normalizeTemplate: what changes at every build goes, resources stay; documents become digests,
 * and no digested property is one whose change could replace its resource.
 */
import { fullDiff, ResourceImpact } from '@aws-cdk/cloudformation-diff';
import { type CfnTemplate, normalizeTemplate } from '../../../lib/release';
import { DOCUMENT_PROPERTIES } from '../../../lib/release/normalize-template';

const HASH = 'a'.repeat(64);
// biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax, not a JS template.
const ASSET_BUCKET = { 'Fn::Sub': 'cdk-hnb659fds-assets-${AWS::AccountId}-${AWS::Region}' };
const OTHER_HASH = 'b'.repeat(64);

/** A template as `cdk synth` writes it, with `hash` as the asset hash. */
function synthesized(hash: string): CfnTemplate {
  return {
    Description: 'stack',
    Resources: {
      Fn: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Code: {
            S3Bucket: ASSET_BUCKET,
            S3Key: `${hash}.zip`,
          },
          Handler: 'index.handler',
        },
        Metadata: {
          'aws:cdk:path': 'Stack/Fn/Resource',
          'aws:asset:path': `asset.${hash}`,
          'aws:asset:property': 'Code',
          cdk_nag: { rules_to_suppress: [{ id: 'AwsSolutions-IAM4', reason: 'r' }] },
          owner: 'team',
        },
      },
      Page: {
        Type: 'Custom::CDKBucketDeployment',
        Properties: { SourceObjectKeys: [`${hash}.zip`], DestinationBucketName: { Ref: 'Bucket' } },
        Metadata: { 'aws:cdk:path': 'Stack/Page' },
      },
      Machine: {
        Type: 'AWS::StepFunctions::StateMachine',
        Properties: {
          DefinitionString: { 'Fn::Join': ['', ['{"StartAt":"A","States":{}}']] },
          RoleArn: 'arn',
        },
      },
      CDKMetadata: {
        Type: 'AWS::CDK::Metadata',
        Properties: { Analytics: 'v2:deflate64:H4sI' },
        Condition: 'CDKMetadataAvailable',
      },
    },
    Conditions: { CDKMetadataAvailable: { 'Fn::Or': [] } },
    Outputs: { Url: { Value: 'x' } },
  };
}

describe('normalizeTemplate', () => {
  it('replaces asset hashes, keeping the extension, so two builds compare equal', () => {
    const normalized = normalizeTemplate(synthesized(HASH));
    expect(normalized.Resources?.Fn?.Properties?.Code).toEqual({
      S3Bucket: ASSET_BUCKET,
      S3Key: '<asset hash>.zip',
    });
    expect(normalized.Resources?.Page?.Properties?.SourceObjectKeys).toEqual(['<asset hash>.zip']);
    expect(normalizeTemplate(synthesized(OTHER_HASH))).toEqual(normalized);
  });

  it("drops the CDK's metadata resource and condition and the tools' metadata keys, keeping the rest", () => {
    const normalized = normalizeTemplate(synthesized(HASH));
    expect(Object.keys(normalized.Resources ?? {})).toEqual(['Fn', 'Page', 'Machine']);
    expect(normalized.Conditions).toBeUndefined();
    expect(normalized.Resources?.Fn?.Metadata).toEqual({ owner: 'team' });
    expect(normalized.Resources?.Page).not.toHaveProperty('Metadata');
    expect(Object.keys(normalized)).toEqual(['Description', 'Resources', 'Outputs']);
    expect(normalized.Outputs).toEqual({ Url: { Value: 'x' } });
  });

  it('keeps other conditions', () => {
    const template = {
      ...synthesized(HASH),
      Conditions: { CDKMetadataAvailable: {}, IsProd: { 'Fn::Equals': ['a', 'b'] } },
    };
    expect(normalizeTemplate(template).Conditions).toEqual({ IsProd: { 'Fn::Equals': ['a', 'b'] } });
  });

  it('reduces a document to the digest of its canonical JSON (key order does not matter, content does)', () => {
    const digestOf = (definition: unknown) =>
      normalizeTemplate({
        Resources: {
          M: { Type: 'AWS::StepFunctions::StateMachine', Properties: { DefinitionString: definition } },
        },
      }).Resources?.M?.Properties?.DefinitionString;
    const digest = digestOf({ a: 1, b: [2, { c: 3, d: 4 }] });
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(digestOf({ b: [2, { d: 4, c: 3 }], a: 1 })).toBe(digest);
    expect(digestOf({ a: 1, b: [2, { c: 3, d: 5 }] })).not.toBe(digest);
  });

  it('is idempotent and leaves its input alone', () => {
    const input = synthesized(HASH);
    const copy = structuredClone(input);
    const once = normalizeTemplate(input);
    expect(input).toEqual(copy);
    expect(normalizeTemplate(once)).toEqual(once);
  });

  it.each(
    Object.entries(DOCUMENT_PROPERTIES).flatMap(([type, properties]) =>
      properties.map((property) => [type, property]),
    ),
  )('%s %s is updated in place, never replaced (so its digest hides no replacement)', (type, property) => {
    const template = (value: string): CfnTemplate => ({
      Resources: { R: { Type: type, Properties: { [property]: value } } },
    });
    expect(fullDiff(template('a'), template('b')).resources.get('R').changeImpact).toBe(
      ResourceImpact.WILL_UPDATE,
    );
  });
});
