/**
 * The deployed operator console (README, Operator console), on the synthesized template: the page's
 * bucket is private and read by CloudFront through OAC only, operators sign in through a user pool
 * no one can sign up to, the identity pool hands out credentials to signed-in operators only and
 * their role may call the operator routes and read the stack's alarms and nothing else, and the
 * operator API answers the console's origin alone. The page is a stand-in folder here (the real
 * build is Vite's, run by bin/app.ts at a console synth).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CONSOLE_CONFIG_FILE } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { BROWSER_ORIGIN_ENV } from '../../../lambdas/shared/http';
import { remoteServicesDownstream } from '../../../lib/fakes/remote-services';
import { addSchedulerAgentSupervisor } from '../../../lib/scheduler-agent-supervisor/deployment';
import { SasContextKey } from '../../../lib/scheduler-agent-supervisor/sas-context-key';
import {
  CONSOLE_OUTPUTS,
  type SchedulerAgentSupervisorStack,
  StackOutput,
} from '../../../lib/scheduler-agent-supervisor/stack';
import { DEMO_CONTEXT, environmentOf, resourcesOf, testApp } from '../support/synth';

let assetsDir: string;
let stack: SchedulerAgentSupervisorStack;
let template: Template;
let violations: { rule: string; resources: (string | undefined)[] }[];

function synthesize(context: Record<string, string>, consoleAssetsDir?: string) {
  const app = testApp({ profile: 'default', ...DEMO_CONTEXT, ...context });
  const synthesized = addSchedulerAgentSupervisor(app, remoteServicesDownstream, undefined, {
    ...(consoleAssetsDir !== undefined && { consoleAssetsDir }),
  });
  return { app, stack: synthesized };
}

beforeAll(() => {
  assetsDir = mkdtempSync(join(tmpdir(), 'console-assets-'));
  writeFileSync(join(assetsDir, 'index.html'), '<!doctype html><title>console</title>');
  const synthesized = synthesize({ [SasContextKey.Console]: 'true' }, assetsDir);
  stack = synthesized.stack;
  template = Template.fromStack(stack);
  violations = new AwsSolutionsChecks().validateScope(synthesized.app).violations.map((violation) => ({
    rule: violation.ruleName,
    resources: violation.violatingResources.map((resource) => resource.constructPath),
  }));
});
afterAll(() => rmSync(assetsDir, { recursive: true, force: true }));

/** The `Fn::GetAtt` of the console distribution's domain: the console's origin, as the template writes it. */
const distributionDomain = () => ({
  'Fn::GetAtt': [
    stack.resolve(stack.operatorConsole?.site.distribution.distributionId).Ref as string,
    'DomainName',
  ],
});

describe('the deployed operator console', () => {
  it('is off unless asked for: no bucket, distribution, user pool or CORS', () => {
    const plain = Template.fromStack(synthesize({}).stack);
    for (const type of [
      'AWS::S3::Bucket',
      'AWS::CloudFront::Distribution',
      'AWS::Cognito::UserPool',
      'AWS::Cognito::IdentityPool',
      'AWS::ApiGateway::GatewayResponse',
    ]) {
      plain.resourceCountIs(type, 0);
    }
    plain.resourcePropertiesCountIs('AWS::ApiGateway::Method', { HttpMethod: 'OPTIONS' }, 0);
  });

  it('is refused on the local profile and without a built page, naming why', () => {
    const local = testApp({ profile: 'local', [SasContextKey.Console]: 'true' });
    expect(() =>
      addSchedulerAgentSupervisor(local, remoteServicesDownstream, undefined, {
        consoleAssetsDir: assetsDir,
      }),
    ).toThrow(/local profile has no deployed console/);
    expect(() => synthesize({ [SasContextKey.Console]: 'true' })).toThrow(/no built console page was given/);
    const empty = mkdtempSync(join(tmpdir(), 'console-empty-'));
    try {
      expect(() => synthesize({ [SasContextKey.Console]: 'true' }, empty)).toThrow(
        /no index\.html in .*build the page first/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('keeps the page in a private, encrypted, TLS-only bucket with access logs', () => {
    const assets = stack.resolve(stack.operatorConsole?.site.bucket.bucketName).Ref as string;
    const bucket = resourcesOf(template)[assets]?.Properties ?? {};
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    expect(bucket.LoggingConfiguration).toEqual(
      expect.objectContaining({ DestinationBucketName: expect.anything(), LogFilePrefix: 's3/' }),
    );
    expect(bucket.WebsiteConfiguration).toBeUndefined();
    // The only Allow: CloudFront, for this distribution (OAC), reading objects.
    const policy = Object.values(template.findResources('AWS::S3::BucketPolicy')).find(
      (candidate) => JSON.stringify(candidate.Properties.Bucket) === JSON.stringify({ Ref: assets }),
    );
    const statements = policy?.Properties.PolicyDocument.Statement as Record<string, unknown>[];
    expect(statements.filter((statement) => statement.Effect === 'Allow')).toEqual([
      {
        Action: 's3:GetObject',
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Resource: expect.anything(),
        Condition: {
          StringEquals: {
            'AWS:SourceArn': {
              'Fn::Join': [
                '',
                expect.arrayContaining([':distribution/', { Ref: distributionDomain()['Fn::GetAtt'][0] }]),
              ],
            },
          },
        },
      },
    ]);
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('serves it through CloudFront with OAC, HTTPS, the page at the root and for unknown paths, strict headers', () => {
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
      }),
    });
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'redirect-to-https' }),
        CustomErrorResponses: [
          Match.objectLike({ ErrorCode: 403, ResponseCode: 200, ResponsePagePath: '/index.html' }),
          Match.objectLike({ ErrorCode: 404, ResponseCode: 200, ResponsePagePath: '/index.html' }),
        ],
        Logging: Match.objectLike({ Prefix: 'cloudfront/' }),
        Origins: [
          Match.objectLike({
            OriginAccessControlId: Match.anyValue(),
            S3OriginConfig: { OriginAccessIdentity: '' },
          }),
        ],
      }),
    });
    const [headers] = Object.values(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'));
    const security = headers?.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = JSON.stringify(stack.resolve(security.ContentSecurityPolicy.ContentSecurityPolicy));
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "frame-ancestors 'none'",
      'connect-src',
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).toContain('.execute-api.');
    expect(csp).toContain('cognito-identity.');
    expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
  });

  it('uploads the page with its config.json naming the API, the pools and the sign-in page', () => {
    const [deployment] = Object.values(template.findResources('Custom::CDKBucketDeployment'));
    const properties = deployment?.Properties;
    expect(properties.SourceObjectKeys).toHaveLength(2);
    expect(properties.Prune).toBe(true);
    expect(properties.DistributionPaths).toEqual(['/*']);
    const markers = JSON.stringify(properties.SourceMarkers);
    const signIn = stack.operatorConsole?.signIn;
    for (const resource of [
      signIn?.userPool.userPoolId,
      signIn?.client.userPoolClientId,
      signIn?.identityPool.ref,
    ]) {
      expect(markers).toContain(JSON.stringify(stack.resolve(resource)));
    }
    expect(markers).toContain('.execute-api.');
    expect(CONSOLE_CONFIG_FILE).toBe('config.json');
  });

  it('signs operators in through a pool nobody signs up to, with MFA, strong passwords and threat protection', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'ON',
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 14, RequireSymbols: true }) },
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
    });
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      // The hosted UI's code flow only: no SRP or custom auth from any other page (none named means
      // Cognito's default, which allows both).
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      CallbackURLs: [{ 'Fn::Join': ['', ['https://', distributionDomain(), '/']] }],
      // The page's sign-out (Cognito's /logout) names the console itself as logout_uri: registered.
      LogoutURLs: [{ 'Fn::Join': ['', ['https://', distributionDomain(), '/']] }],
    });
  });

  it('hands credentials to signed-in operators only: no unauthenticated identities, a role for this pool authenticated', () => {
    template.hasResourceProperties('AWS::Cognito::IdentityPool', {
      AllowUnauthenticatedIdentities: false,
      AllowClassicFlow: false,
    });
    const attachment = Object.values(template.findResources('AWS::Cognito::IdentityPoolRoleAttachment'))[0];
    expect(Object.keys(attachment?.Properties.Roles)).toEqual(['authenticated']);
    const role = stack.operatorConsole?.signIn.authenticatedRole;
    const roleId = stack.resolve(role?.roleName).Ref as string;
    const trust = resourcesOf(template)[roleId]?.Properties?.AssumeRolePolicyDocument as {
      Statement: Record<string, unknown>[];
    };
    expect(trust.Statement).toEqual([
      {
        Action: 'sts:AssumeRoleWithWebIdentity',
        Effect: 'Allow',
        Principal: { Federated: 'cognito-identity.amazonaws.com' },
        Condition: {
          StringEquals: {
            'cognito-identity.amazonaws.com:aud': stack.resolve(
              stack.operatorConsole?.signIn.identityPool.ref,
            ),
          },
          'ForAnyValue:StringLike': { 'cognito-identity.amazonaws.com:amr': 'authenticated' },
        },
      },
    ]);
  });

  it("lets the operators' role invoke the operator routes, read the stack's alarms and the dashboard's metrics, nothing else", () => {
    const role = stack.operatorConsole?.signIn.authenticatedRole;
    const roleRef = stack.resolve(role?.roleName);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(JSON.stringify(roleRef)),
    );
    // The managed policies are the operators' OperatorAccess and OperatorReadOnly, which the
    // console's role does not hold.
    const managed = Object.values(template.findResources('AWS::IAM::ManagedPolicy'));
    expect(managed.map((policy) => policy.Properties.Description)).toEqual([
      expect.stringContaining("the orders API's operator routes"),
      expect.stringContaining("read (GET) methods of the orders API's operator routes"),
    ]);
    for (const policy of managed) {
      expect(JSON.stringify(policy.Properties.Roles ?? [])).not.toContain(JSON.stringify(roleRef));
    }
    expect(resourcesOf(template)[roleRef.Ref]?.Properties?.ManagedPolicyArns).toBeUndefined();
    const statements = policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    expect(statements.map((statement) => statement.Action)).toEqual([
      'execute-api:Invoke',
      'cloudwatch:DescribeAlarms',
      'cloudwatch:GetMetricData',
    ]);
    const routes = (statements[0].Resource as unknown[]).map((arn) => JSON.stringify(arn));
    const methods = stack.operatorApi.methods.map((method) =>
      JSON.stringify(stack.resolve(method.methodArn)),
    );
    expect(routes.sort()).toEqual(methods.sort());
    for (const route of routes) expect(route).toMatch(/"\/(GET|POST)\/operator\/orders[^"]*"/);
    expect(JSON.stringify(statements[1].Resource)).toContain(`:alarm:${Stack.of(stack).stackName}-*`);
    // GetMetricData has no resource type or condition key (the Service Authorization Reference): `*`,
    // with no other action beside it, and acknowledged for that reason.
    expect(statements[2]).toEqual({ Effect: 'Allow', Action: 'cloudwatch:GetMetricData', Resource: '*' });
    const acknowledged = role?.node
      .findAll()
      .flatMap((construct) => construct.node.metadata)
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .find(([id]) => id.replace(/^annotation::/i, '') === 'AwsSolutions-IAM5[Resource::*]');
    expect(acknowledged?.[1]).toMatch(/GetMetricData, which has no resource type or condition key/);
  });

  it("refuses other stacks' alarm sources that are unlabelled, labelled twice or overlap, naming them", () => {
    const console = (otherAlarms: { wing: string; namePrefix: string }[]) => () =>
      addSchedulerAgentSupervisor(
        testApp({ profile: 'default', ...DEMO_CONTEXT, [SasContextKey.Console]: 'true' }),
        remoteServicesDownstream,
        undefined,
        { consoleAssetsDir: assetsDir, consoleOtherAlarms: otherAlarms },
      );
    expect(console([{ wing: ' ', namePrefix: 'DroneDelivery-' }])).toThrow(/has no wing label/);
    expect(console([{ wing: 'Orders', namePrefix: 'DroneDelivery-' }])).toThrow(
      /two alarm sources are labelled 'Orders'/,
    );
    expect(console([{ wing: 'All', namePrefix: '' }])).toThrow(/empty name prefix/);
    expect(console([{ wing: 'Any', namePrefix: 'Drone*' }])).toThrow(/has a wildcard/);
    expect(console([{ wing: 'Nested', namePrefix: 'SchedulerAgentSupervisor-Admission' }])).toThrow(
      /Orders alarm prefix 'SchedulerAgentSupervisor-' also takes the Nested alarms/,
    );
    expect(console([{ wing: 'Deliveries', namePrefix: 'DroneDelivery-' }])).not.toThrow();
  });

  it('answers CORS preflights of the operator routes for the console origin alone, without auth', () => {
    const preflights = template.findResources('AWS::ApiGateway::Method', {
      Properties: { HttpMethod: 'OPTIONS' },
    });
    // list, inspect, workflow, retry, cancel
    expect(Object.keys(preflights)).toHaveLength(5);
    const origin = { 'Fn::Join': ['', ["'https://", distributionDomain(), "'"]] };
    for (const preflight of Object.values(preflights)) {
      expect(preflight.Properties.AuthorizationType).toBe('NONE');
      expect(preflight.Properties.ApiKeyRequired).toBe(false);
      expect(preflight.Properties.Integration.Type).toBe('MOCK');
      const headers = preflight.Properties.Integration.IntegrationResponses[0].ResponseParameters;
      expect(headers['method.response.header.Access-Control-Allow-Origin']).toEqual(origin);
      expect(headers['method.response.header.Access-Control-Allow-Headers']).toContain(
        'X-Amz-Security-Token',
      );
    }
    // The client routes keep no preflight: only the operator routes are for the browser.
    const clientPreflight = JSON.stringify(Object.values(preflights)).includes('SubmissionApiorders');
    expect(clientPreflight).toBe(false);
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        ResponseParameters: Match.objectLike({
          'gatewayresponse.header.Access-Control-Allow-Origin': origin,
        }),
      });
    }
  });

  it("tells the operator handlers the console's origin, and no other function", () => {
    const origin = { 'Fn::Join': ['', ['https://', distributionDomain()]] };
    const handlers = ['operator-list', 'operator-inspect', 'operator-workflow', 'operator-action'];
    for (const service of handlers) {
      expect(environmentOf(template, service)[BROWSER_ORIGIN_ENV]).toEqual(origin);
    }
    const others = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (fn) =>
        !handlers.includes(fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME) &&
        fn.Properties.Environment?.Variables?.[BROWSER_ORIGIN_ENV] !== undefined,
    );
    expect(others).toEqual([]);
  });

  it('outputs the console URL and the operators user pool', () => {
    expect(CONSOLE_OUTPUTS).toEqual([StackOutput.ConsoleUrl, StackOutput.OperatorUserPoolId]);
    template.hasOutput(StackOutput.ConsoleUrl, {
      Value: { 'Fn::Join': ['', ['https://', distributionDomain(), '/']] },
    });
    template.hasOutput(StackOutput.OperatorUserPoolId, Match.anyValue());
  });

  it('passes cdk-nag AwsSolutions with every finding acknowledged for a reason', () => {
    expect(violations).toEqual([]);
    const consoleAcknowledgments = stack.node
      .findAll()
      .filter((construct) => /OperatorConsole|CDKBucketDeployment|OPTIONS/.test(construct.node.path))
      .flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((entry) => Object.entries(entry.data as Record<string, string>)),
      )
      // aws-cdk-lib acknowledges CloudFormation validation rules of its own constructs itself.
      .filter(([id]) => !/^CloudFormation-Validate::/.test(id));
    expect(consoleAcknowledgments.length).toBeGreaterThan(10);
    for (const [id, reason] of consoleAcknowledgments) {
      expect(id.replace(/^annotation::/i, '')).toMatch(/^AwsSolutions-[A-Z]+[0-9]+(\[.+\])?$/);
      expect(reason.length).toBeGreaterThan(30);
    }
  });
});
