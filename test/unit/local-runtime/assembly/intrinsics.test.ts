import {
  evaluateCondition,
  type IntrinsicContext,
  resolveIntrinsics,
} from '../../../../lib/local-runtime/assembly/intrinsics';

const context: IntrinsicContext = {
  region: 'eu-west-1',
  accountId: '000000000000',
  partition: 'aws',
  urlSuffix: 'amazonaws.com',
  stackName: 'App',
  ref: (logicalId) => {
    if (logicalId === 'Queue') return 'http://sqs/000000000000/App-Queue';
    if (logicalId === 'Table') return 'App-Table';
    throw new Error(`unknown resource ${logicalId}`);
  },
  getAtt: (logicalId, attribute) => `${logicalId}:${attribute}`,
  parameters: {
    BootstrapVersion: { Type: 'String', Default: '/cdk-bootstrap/version' },
    NoDefault: { Type: 'String' },
  },
  conditions: {
    IsEu: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-1'] },
    IsUs: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] },
    Either: { 'Fn::Or': [{ Condition: 'IsEu' }, { Condition: 'IsUs' }] },
    Neither: { 'Fn::Not': [{ Condition: 'Either' }] },
    Both: { 'Fn::And': [{ Condition: 'IsEu' }, { Condition: 'IsUs' }] },
  },
  mappings: { Sizes: { 'eu-west-1': { Memory: 256 } } },
};

const resolve = (value: unknown) => resolveIntrinsics(value, context);

describe('resolveIntrinsics', () => {
  it('resolves Ref to resources, parameters (their Default) and pseudo parameters', () => {
    expect(resolve({ Ref: 'Table' })).toBe('App-Table');
    expect(resolve({ Ref: 'BootstrapVersion' })).toBe('/cdk-bootstrap/version');
    expect(
      resolve(
        ['AWS::Region', 'AWS::AccountId', 'AWS::Partition', 'AWS::URLSuffix', 'AWS::StackName'].map(
          (name) => ({ Ref: name }),
        ),
      ),
    ).toEqual(['eu-west-1', '000000000000', 'aws', 'amazonaws.com', 'App']);
    expect(resolve({ Ref: 'AWS::StackId' })).toBe(
      'arn:aws:cloudformation:eu-west-1:000000000000:stack/App/local',
    );
    expect(resolve({ Ref: 'AWS::NotificationARNs' })).toEqual([]);
  });

  it('resolves Fn::GetAtt in both the list and the dotted form', () => {
    expect(resolve({ 'Fn::GetAtt': ['Queue', 'Arn'] })).toBe('Queue:Arn');
    expect(resolve({ 'Fn::GetAtt': 'Url.FunctionUrl' })).toBe('Url:FunctionUrl');
  });

  it('resolves Fn::Join, Fn::Select, Fn::Split and Fn::Base64, nested', () => {
    const arn = { 'Fn::Join': [':', ['arn', { Ref: 'AWS::Partition' }, 'sqs', { Ref: 'AWS::Region' }]] };
    expect(resolve(arn)).toBe('arn:aws:sqs:eu-west-1');
    expect(resolve({ 'Fn::Select': [1, { 'Fn::Split': ['/', { Ref: 'Queue' }] }] })).toBe('');
    expect(resolve({ 'Fn::Select': [4, { 'Fn::Split': ['/', { Ref: 'Queue' }] }] })).toBe('App-Queue');
    expect(resolve({ 'Fn::Base64': 'hi' })).toBe('aGk=');
  });

  it('resolves Fn::Sub with resource names, attributes, pseudo parameters, variables and escaped literals', () => {
    expect(
      resolve({
        'Fn::Sub': [
          // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax, not a JS template.
          'arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${Table} ${Queue.Arn} ${Extra} ${!Keep}',
          { Extra: { Ref: 'AWS::StackName' } },
        ],
      }),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the escaped ${!Keep} stays literal.
    ).toBe('arn:aws:dynamodb:eu-west-1:000000000000:table/App-Table Queue:Arn App ${Keep}');
  });

  it('evaluates conditions and Fn::If, and drops AWS::NoValue from objects and lists', () => {
    expect(evaluateCondition('Either', context)).toBe(true);
    expect(evaluateCondition('Neither', context)).toBe(false);
    expect(evaluateCondition('Both', context)).toBe(false);
    expect(
      resolve({
        Size: { 'Fn::If': ['IsEu', { 'Fn::FindInMap': ['Sizes', { Ref: 'AWS::Region' }, 'Memory'] }, 128] },
        Gone: { 'Fn::If': ['IsUs', 'x', { Ref: 'AWS::NoValue' }] },
        List: ['a', { Ref: 'AWS::NoValue' }, 'b'],
      }),
    ).toEqual({ Size: 256, List: ['a', 'b'] });
  });

  it('refuses Fn::ImportValue with an error naming where and why', () => {
    expect(() =>
      resolveIntrinsics({ Env: { 'Fn::ImportValue': 'SharedBus' } }, context, 'Resources.Fn'),
    ).toThrow(
      /Resources\.Fn\.Env\.Fn::ImportValue: Fn::ImportValue "SharedBus" is not supported: .*cross-stack/,
    );
  });

  it('names the problem for unknown functions, bad arguments, unknown references and parameters without default', () => {
    expect(() => resolve({ 'Fn::Cidr': ['10.0.0.0/16', 2, 8] })).toThrow(/Fn::Cidr is not supported/);
    expect(() => resolve({ 'Fn::Select': [5, ['a']] })).toThrow(/index 5 is outside a list of 1/);
    expect(() => resolve({ 'Fn::Join': [',', 'not-a-list'] })).toThrow(/Fn::Join list must be a list/);
    expect(() => resolve({ Ref: 'Missing' })).toThrow(/unknown resource Missing/);
    expect(() => resolve({ Ref: 'NoDefault' })).toThrow(/parameter NoDefault has no Default/);
    expect(() => resolve({ Ref: 'AWS::Nope' })).toThrow(/unknown pseudo parameter AWS::Nope/);
    expect(() => evaluateCondition('Unknown', context)).toThrow(/unknown condition 'Unknown'/);
  });

  it('leaves plain values and objects with several keys (not intrinsics) as they are', () => {
    expect(resolve({ Ref: 'Table', Other: 1 })).toEqual({ Ref: 'Table', Other: 1 });
    expect(resolve([1, true, null, 'x'])).toEqual([1, true, null, 'x']);
  });
});
