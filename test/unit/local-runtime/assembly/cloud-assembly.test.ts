import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  type AssemblyStack,
  createStackResolver,
  generatedPhysicalName,
  readCloudAssembly,
} from '../../../../lib/local-runtime/assembly/cloud-assembly';

const stack: AssemblyStack = {
  stackName: 'Orders',
  artifactId: 'Orders',
  templatePath: '/dev/null',
  fileAssets: new Map(),
  template: {
    Resources: {
      Queue: { Type: 'AWS::SQS::Queue' },
      Fifo: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true } },
      Named: {
        Type: 'AWS::DynamoDB::Table',
        Properties: { TableName: { 'Fn::Join': ['-', [{ Ref: 'AWS::StackName' }, 'named']] } },
      },
      Fn: {
        Type: 'AWS::Lambda::Function',
        Properties: { Environment: { Variables: { Q: { Ref: 'Queue' } } } },
      },
      Url: { Type: 'AWS::Lambda::Url', Properties: { TargetFunctionArn: { 'Fn::GetAtt': ['Fn', 'Arn'] } } },
      Machine: { Type: 'AWS::StepFunctions::StateMachine' },
      Topic: { Type: 'AWS::SNS::Topic' },
      Api: { Type: 'AWS::ApiGateway::RestApi' },
      Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'prod', RestApiId: { Ref: 'Api' } } },
      OnlyInUs: { Type: 'AWS::SQS::Queue', Condition: 'InUs' },
      Bucket: { Type: 'AWS::S3::Bucket' },
      Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'alerts' } },
      OnDefault: { Type: 'AWS::Events::Rule' },
      OnBus: { Type: 'AWS::Events::Rule', Properties: { Name: 'archive', EventBusName: { Ref: 'Bus' } } },
      OnBusArn: {
        Type: 'AWS::Events::Rule',
        Properties: { Name: 'by-arn', EventBusName: { 'Fn::GetAtt': ['Bus', 'Arn'] } },
      },
    },
    Conditions: { InUs: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-west-2'] } },
    Outputs: {
      ApiUrl: {
        Value: {
          'Fn::Join': [
            '',
            [
              'https://',
              { Ref: 'Api' },
              '.execute-api.',
              { Ref: 'AWS::Region' },
              '.',
              { Ref: 'AWS::URLSuffix' },
              '/',
              { Ref: 'Stage' },
              '/',
            ],
          ],
        },
      },
      QueueUrl: { Value: { Ref: 'Queue' } },
      RemoteServiceUrl: { Value: { 'Fn::GetAtt': ['Url', 'FunctionUrl'] } },
      Hidden: { Value: 'x', Condition: 'InUs' },
    },
  },
};

const resolver = createStackResolver(stack, {
  region: 'us-east-1',
  accountId: '000000000000',
  sqsEndpoint: 'http://127.0.0.1:9324',
  restApiBaseUrl: (logicalId) => (logicalId === 'Api' ? 'http://localhost:3000' : 'unexpected'),
  functionUrl: (logicalId) => (logicalId === 'Url' ? 'http://127.0.0.1:4000/' : 'unexpected'),
});

describe('createStackResolver', () => {
  it('derives physical names from the stack and logical ids, honouring explicit names and FIFO suffixes', () => {
    expect(resolver.physicalName('Queue')).toBe('Orders-Queue');
    expect(resolver.physicalName('Fifo')).toBe('Orders-Fifo.fifo');
    expect(resolver.physicalName('Named')).toBe('Orders-named');
    expect(resolver.physicalName('Api')).toMatch(/^[0-9a-f]{10}$/);
  });

  it('answers Ref and GetAtt with local URLs and ARNs', () => {
    const { ref, getAtt } = resolver.context;
    expect(ref('Queue')).toBe('http://127.0.0.1:9324/000000000000/Orders-Queue');
    expect(getAtt('Queue', 'Arn')).toBe('arn:aws:sqs:us-east-1:000000000000:Orders-Queue');
    expect(getAtt('Queue', 'QueueName')).toBe('Orders-Queue');
    expect(getAtt('Named', 'Arn')).toBe('arn:aws:dynamodb:us-east-1:000000000000:table/Orders-named');
    expect(getAtt('Fn', 'Arn')).toBe('arn:aws:lambda:us-east-1:000000000000:function:Orders-Fn');
    expect(ref('Machine')).toBe('arn:aws:states:us-east-1:000000000000:stateMachine:Orders-Machine');
    expect(ref('Topic')).toBe('arn:aws:sns:us-east-1:000000000000:Orders-Topic');
    expect(ref('Stage')).toBe('prod');
    expect(getAtt('Url', 'FunctionUrl')).toBe('http://127.0.0.1:4000/');
    expect(getAtt('Url', 'FunctionArn')).toBe('arn:aws:lambda:us-east-1:000000000000:function:Orders-Fn');
    expect(() => getAtt('Queue', 'Nope')).toThrow(/attribute Nope of AWS::SQS::Queue is not supported/);
    // A rule's ARN names its bus unless it is on the default one, as AWS's does.
    expect(getAtt('OnDefault', 'Arn')).toBe('arn:aws:events:us-east-1:000000000000:rule/Orders-OnDefault');
    expect(getAtt('OnBus', 'Arn')).toBe('arn:aws:events:us-east-1:000000000000:rule/alerts/archive');
    expect(getAtt('OnBusArn', 'Arn')).toBe('arn:aws:events:us-east-1:000000000000:rule/alerts/by-arn');
    expect(() => ref('Ghost')).toThrow(/unknown resource or parameter 'Ghost' in stack Orders/);
  });

  it('resolves properties and outputs, rewriting the execute-api URL to the local API port', () => {
    expect(resolver.properties('Fn')).toEqual({
      Environment: { Variables: { Q: 'http://127.0.0.1:9324/000000000000/Orders-Queue' } },
    });
    expect(resolver.outputs()).toEqual({
      ApiUrl: 'http://localhost:3000/prod/',
      QueueUrl: 'http://127.0.0.1:9324/000000000000/Orders-Queue',
      RemoteServiceUrl: 'http://127.0.0.1:4000/',
    });
  });

  it('honours resource conditions', () => {
    expect(resolver.isCreated('Queue')).toBe(true);
    expect(resolver.isCreated('OnlyInUs')).toBe(false);
  });
});

describe('generatedPhysicalName', () => {
  it('keeps names within the type limit with a stable hash suffix', () => {
    const long = generatedPhysicalName(
      'AVeryLongStackNameForTesting',
      'AnEvenLongerLogicalIdThatGoesOnAndOn1234',
      'AWS::Lambda::Function',
    );
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toBe(
      generatedPhysicalName(
        'AVeryLongStackNameForTesting',
        'AnEvenLongerLogicalIdThatGoesOnAndOn1234',
        'AWS::Lambda::Function',
      ),
    );
    expect(long).not.toBe(
      generatedPhysicalName(
        'AVeryLongStackNameForTesting',
        'AnEvenLongerLogicalIdThatGoesOnAndOn1235',
        'AWS::Lambda::Function',
      ),
    );
  });
});

describe('readCloudAssembly', () => {
  it('says how to synthesize when there is no assembly', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-assembly-'));
    try {
      expect(() => readCloudAssembly(empty)).toThrow(
        new RegExp(
          `Cannot read the cloud assembly in ${empty} \\(.*manifest\\.json.*\\)\\. Synthesize first`,
        ),
      );
      writeFileSync(join(empty, 'manifest.json'), JSON.stringify({ version: '36.0.0', artifacts: {} }));
      expect(() => readCloudAssembly(empty)).toThrow(
        `The cloud assembly ${empty} contains no CloudFormation stack`,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("keeps the app's stack order (not the names' order), after each stack's dependencies", () => {
    const outdir = mkdtempSync(join(tmpdir(), 'stack-order-'));
    try {
      const app = new App({ outdir });
      const zebra = new Stack(app, 'Zebra');
      const mango = new Stack(app, 'Mango');
      const apple = new Stack(app, 'Apple');
      for (const stack of [zebra, mango, apple]) new sqs.Queue(stack, 'Queue');
      mango.addDependency(apple);
      app.synth();
      expect(readCloudAssembly(outdir).stacks.map((stack) => stack.stackName)).toEqual([
        'Zebra',
        'Apple',
        'Mango',
      ]);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
