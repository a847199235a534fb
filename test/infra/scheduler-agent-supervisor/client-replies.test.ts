/**
 * Per-client reply queues and the status notifier, as synthesized: one key and one FIFO queue (with
 * its FIFO dead-letter queue) per configured client, queue policies that let only the client's
 * principal consume, a notifier that may only send to those queues, and its stream event source.
 */
import {
  type CfnElement,
  CliCredentialsStackSynthesizer,
  DefaultStackSynthesizer,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { EnvKey, ProcessState, StateAttr } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { DataSettings } from '../../../lib/platform/data-settings';
import {
  CLIENT_ONLY_ACTIONS,
  ClientReplyQueues,
  DEPLOYER_ONLY_ACTIONS,
  NO_DEPLOYING_ROLE_WARNING,
  REPLY_MAX_RECEIVE_COUNT,
} from '../../../lib/scheduler-agent-supervisor/client-reply-queues';
import { StackOutput } from '../../../lib/scheduler-agent-supervisor/stack';
import { DEFAULT_NOTIFIER_TUNING } from '../../../lib/scheduler-agent-supervisor/status-notifier';
import {
  actionsOf,
  DEMO_CONTEXT,
  functionIdByService,
  PROBE_DATA_SETTINGS,
  probeStack,
  resourcesOf,
  type SynthesizedStack,
  statementsOfFunction,
  synthesizeStack,
  testApp,
} from '../support/synth';

const logicalId = (construct: IConstruct): string =>
  Stack.of(construct).resolve((construct.node.defaultChild as CfnElement).logicalId) as string;

interface Statement {
  Sid?: string;
  Effect: string;
  Principal?: unknown;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

function policyStatementsOf(template: Template, queueId: string): Statement[] {
  return Object.values(template.findResources('AWS::SQS::QueuePolicy'))
    .filter((policy) => JSON.stringify(policy.Properties.Queues).includes(`"${queueId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

const asList = (action: string | string[]) => (Array.isArray(action) ? action : [action]);

describe('client reply queues and status notifier (default profile)', () => {
  let synth: SynthesizedStack;
  let template: Template;
  beforeAll(() => {
    synth = synthesizeStack('default', { context: DEMO_CONTEXT });
    template = synth.template;
  });

  it('gives every configured client its own API key in the usage plan, and no key without a client', () => {
    const keys = template.findResources('AWS::ApiGateway::ApiKey');
    expect(Object.keys(keys)).toHaveLength(synth.config.clients.length);
    for (const client of synth.config.clients) {
      const key = synth.stack.submission.clientKeys.get(client.name);
      if (!key) throw new Error(`no key for ${client.name}`);
      const id = logicalId(key);
      // No StageKeys: a stage key would make the key depend on the deployment (and so on the
      // functions whose environment names the key): a cycle.
      expect(keys[id]?.Properties?.StageKeys).toBeUndefined();
      template.hasResourceProperties('AWS::ApiGateway::UsagePlanKey', {
        KeyId: { Ref: id },
        KeyType: 'API_KEY',
      });
    }
  });

  it('gives every client a FIFO reply queue (SSE, 14 days) whose FIFO dead-letter queue takes what it keeps failing', () => {
    expect(synth.stack.clientReplies.clients.map((client) => client.name)).toEqual(
      synth.config.clients.map((client) => client.name),
    );
    const resources = resourcesOf(template);
    for (const client of synth.stack.clientReplies.clients) {
      const queue = resources[logicalId(client.queue)]?.Properties;
      const deadLetterId = logicalId(client.deadLetterQueue);
      expect(queue).toMatchObject({
        FifoQueue: true,
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] },
          maxReceiveCount: REPLY_MAX_RECEIVE_COUNT,
        },
      });
      // Deduplication is by the message key the notifier sends, never by content.
      expect(queue?.ContentBasedDeduplication).not.toBe(true);
      expect(resources[deadLetterId]?.Properties).toMatchObject({
        FifoQueue: true,
        SqsManagedSseEnabled: true,
      });
    }
  });

  it("lets only the client's principal receive, delete or change visibility on its queues (explicit deny for every other)", () => {
    for (const [index, client] of synth.stack.clientReplies.clients.entries()) {
      const configured = synth.config.clients[index];
      if (!configured) throw new Error('client order changed');
      const principal = {
        'Fn::Join': [
          '',
          [
            configured.principal.split('{account}')[0],
            { Ref: 'AWS::AccountId' },
            configured.principal.split('{account}')[1],
          ],
        ],
      };
      for (const queue of [client.queue, client.deadLetterQueue]) {
        const statements = policyStatementsOf(template, logicalId(queue));
        const deny = statements.find((s) => s.Sid === 'OnlyTheClientConsumes');
        expect(deny).toMatchObject({
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Resource: { 'Fn::GetAtt': [logicalId(queue), 'Arn'] },
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': principal } },
        });
        expect(asList(deny?.Action ?? []).sort()).toEqual([...CLIENT_ONLY_ACTIONS].sort());
        const allow = statements.find((s) => s.Sid === 'TheClientConsumes');
        expect(allow).toMatchObject({ Effect: 'Allow', Principal: { AWS: principal } });
        expect(asList(allow?.Action ?? [])).toEqual(expect.arrayContaining([...CLIENT_ONLY_ACTIONS]));
        // Nothing else in any queue policy allows consuming these queues.
        const otherAllows = statements.filter((s) => s.Effect === 'Allow' && s.Sid !== 'TheClientConsumes');
        expect(otherAllows).toEqual([]);
      }
    }
  });

  it("lets only the status notifier's role send, and only CloudFormation's execution role purge, reconfigure or delete, on every reply queue", () => {
    const notifierRole = logicalId(synth.stack.statusNotifier.notifier.role);
    for (const client of synth.stack.clientReplies.clients) {
      for (const queue of [client.queue, client.deadLetterQueue]) {
        const statements = policyStatementsOf(template, logicalId(queue));
        const resource = { 'Fn::GetAtt': [logicalId(queue), 'Arn'] };
        const sends = statements.find((s) => s.Sid === 'OnlyTheNotifierSends');
        expect(sends).toEqual({
          Sid: 'OnlyTheNotifierSends',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'sqs:SendMessage',
          Resource: resource,
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': [notifierRole, 'Arn'] } } },
        });
        const administers = statements.find((s) => s.Sid === 'OnlyTheDeployerAdministers');
        expect(administers).toMatchObject({
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Resource: resource,
          // The CDK bootstrap's role (default qualifier), as the CLI's deployments use it.
          Condition: {
            ArnNotEquals: {
              'aws:PrincipalArn': {
                'Fn::Sub':
                  // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub placeholders
                  'arn:${AWS::Partition}:iam::${AWS::AccountId}:role/cdk-hnb659fds-cfn-exec-role-${AWS::AccountId}-${AWS::Region}',
              },
            },
          },
        });
        expect(asList(administers?.Action ?? []).sort()).toEqual([...DEPLOYER_ONLY_ACTIONS].sort());
      }
    }
  });

  it('no function may consume a reply queue; the notifier may only SendMessage to them', () => {
    const replyQueueIds = synth.stack.clientReplies.clients.flatMap((client) => [
      logicalId(client.queue),
      logicalId(client.deadLetterQueue),
    ]);
    const touchesReplyQueue = (resource: unknown) =>
      replyQueueIds.some((id) => JSON.stringify(resource).includes(`"${id}"`));
    for (const id of Object.keys(template.findResources('AWS::Lambda::Function'))) {
      for (const statement of statementsOfFunction(template, id).filter((s) =>
        touchesReplyQueue(s.Resource),
      )) {
        expect(actionsOf(statement)).toEqual(['sqs:SendMessage']);
      }
    }
    const notifier = statementsOfFunction(template, functionIdByService(template, 'status-notifier'));
    const sends = notifier.filter((s) => touchesReplyQueue(s.Resource));
    expect(sends).toHaveLength(1);
    expect(sends[0]?.Resource).toEqual(
      synth.stack.clientReplies.clients.map((client) => ({ 'Fn::GetAtt': [logicalId(client.queue), 'Arn'] })),
    );
  });

  it('hands the handlers one registry: each client with its key id (Ref) and reply queue URL', () => {
    const functions = resourcesOf(template);
    for (const service of ['submit-order', 'get-order', 'status-notifier']) {
      const environment = functions[functionIdByService(template, service)]?.Properties?.Environment as
        | { Variables: Record<string, unknown> }
        | undefined;
      const variables = environment?.Variables ?? {};
      const registry = Stack.of(synth.stack).resolve(variables[EnvKey.ClientRegistry]);
      const rendered = JSON.stringify(registry);
      for (const client of synth.stack.clientReplies.clients) {
        const key = synth.stack.submission.clientKeys.get(client.name);
        if (!key) throw new Error('no key');
        expect(rendered).toContain(`"clientId\\":\\"${client.name}`);
        expect(rendered).toContain(JSON.stringify({ Ref: logicalId(key) }));
        expect(rendered).toContain(JSON.stringify({ Ref: logicalId(client.queue) }));
      }
    }
  });

  it('exports each client (key id, reply queues, principal) in the Clients output', () => {
    const output = template.toJSON().Outputs[StackOutput.Clients];
    const rendered = JSON.stringify(output.Value);
    for (const client of synth.stack.clientReplies.clients) {
      expect(rendered).toContain(JSON.stringify({ Ref: logicalId(client.queue) }));
      expect(rendered).toContain(JSON.stringify({ Ref: logicalId(client.deadLetterQueue) }));
    }
    const first = synth.stack.submission.clientKeys.get(synth.config.clients[0]?.name ?? '');
    expect(template.toJSON().Outputs[StackOutput.ApiKeyId].Value).toEqual({
      Ref: logicalId(first as IConstruct),
    });
  });

  it('streams the state table with both images', () => {
    expect(resourcesOf(template)[logicalId(synth.stack.stateStore.table)]?.Properties).toMatchObject({
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
  });

  it('reads the stream with bisection, bounded retries and age, an on-failure queue and partial batch failures, filtered to creations and told states', () => {
    const notifierId = functionIdByService(template, 'status-notifier');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: notifierId },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(synth.stack.stateStore.table), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: DEFAULT_NOTIFIER_TUNING.batchSize,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: DEFAULT_NOTIFIER_TUNING.retryAttempts,
      MaximumRecordAgeInSeconds: DEFAULT_NOTIFIER_TUNING.maxRecordAgeSeconds,
      ParallelizationFactor: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: {
          Destination: { 'Fn::GetAtt': [logicalId(synth.stack.statusNotifier.failureQueue), 'Arn'] },
        },
      },
      FilterCriteria: {
        Filters: [
          { Pattern: JSON.stringify({ eventName: ['INSERT'] }) },
          {
            Pattern: JSON.stringify({
              eventName: ['MODIFY'],
              dynamodb: {
                NewImage: {
                  [StateAttr.ProcessState]: {
                    S: [
                      ProcessState.Processed,
                      ProcessState.Error,
                      ProcessState.Compensated,
                      ProcessState.CompensationFailed,
                    ],
                  },
                },
              },
            }),
          },
          // Transitions into the untold states, counted for the dashboard (not writes within them).
          ...[ProcessState.Pending, ProcessState.Processing, ProcessState.CompensationInProgress].map(
            (state) => ({
              Pattern: JSON.stringify({
                eventName: ['MODIFY'],
                dynamodb: {
                  NewImage: { [StateAttr.ProcessState]: { S: [state] } },
                  OldImage: { [StateAttr.ProcessState]: { S: [{ 'anything-but': [state] }] } },
                },
              }),
            }),
          ),
        ],
      },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith(['dynamodb:GetRecords', 'dynamodb:GetShardIterator']),
            Resource: { 'Fn::GetAtt': [logicalId(synth.stack.stateStore.table), 'StreamArn'] },
          }),
        ]),
      },
    });
  });
});

describe('ClientReplyQueues deploying role and sender', () => {
  const clients = [{ name: 'web-shop', principal: 'arn:aws:iam::{account}:role/orders-client' }];
  /** A stack with its own props (a synthesizer, an environment), data settings as probeStack's. */
  const stackWith = (id: string, props: StackProps = {}): Stack => {
    const stack = new Stack(testApp(), id, props);
    DataSettings.forStack(stack, PROBE_DATA_SETTINGS);
    return stack;
  };
  /** The queue policy statements of a ClientReplyQueues in a stack of its own, the sender named. */
  function synthesized(stack: Stack, deployingRoleArn?: string) {
    const replies = new ClientReplyQueues(stack, 'Clients', {
      clients,
      ...(deployingRoleArn ? { deployingRoleArn } : {}),
    });
    replies.onlySender(
      new iam.Role(stack, 'Sender', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') }),
    );
    const template = Template.fromStack(stack);
    const queue = replies.clients[0]?.queue;
    if (!queue) throw new Error('no queue');
    return { template, statements: policyStatementsOf(template, logicalId(queue)) };
  }
  const administeredBy = (statements: Statement[]) =>
    statements.find((s) => s.Sid === 'OnlyTheDeployerAdministers')?.Condition?.ArnNotEquals?.[
      'aws:PrincipalArn'
    ];

  it("reads the execution role from the stack's synthesizer: a custom qualifier and an explicit account", () => {
    const stack = stackWith('Qualified', {
      env: { account: '111122223333', region: 'eu-west-1' },
      synthesizer: new DefaultStackSynthesizer({ qualifier: 'team42' }),
    });
    expect(administeredBy(synthesized(stack).statements)).toEqual({
      'Fn::Sub':
        // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub placeholders
        'arn:${AWS::Partition}:iam::111122223333:role/cdk-team42-cfn-exec-role-111122223333-eu-west-1',
    });
  });

  it('takes a deploying role given as a prop over the synthesizer', () => {
    const role = 'arn:aws:iam::111122223333:role/deployer';
    expect(administeredBy(synthesized(stackWith('Given'), role).statements)).toEqual({
      'Fn::Sub': role,
    });
  });

  it('with a synthesizer that names no execution role (CLI credentials), limits no administration and warns', () => {
    const stack = stackWith('Cli', { synthesizer: new CliCredentialsStackSynthesizer() });
    const { statements } = synthesized(stack);
    expect(statements.map((s) => s.Sid).sort()).toEqual([
      'OnlyTheClientConsumes',
      'OnlyTheNotifierSends',
      'TheClientConsumes',
    ]);
    const warnings = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('no CloudFormation execution role'),
    );
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0]?.entry.data)).toContain(NO_DEPLOYING_ROLE_WARNING);
  });

  it('fails synthesis until onlySender names the sender, and takes one sender only', () => {
    const stack = stackWith('NoSender');
    const replies = new ClientReplyQueues(stack, 'Clients', { clients });
    expect(() => Template.fromStack(stack)).toThrow(/onlySender was never called/);
    const role = new iam.Role(stack, 'Sender', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    replies.onlySender(role);
    expect(() => replies.onlySender(role)).toThrow(/onlySender is already set/);
  });
});

describe('ClientReplyQueues validation', () => {
  const build = (clients: { name: string; principal: string }[]) => () =>
    new ClientReplyQueues(probeStack(), 'Clients', { clients });
  const ok = 'arn:aws:iam::{account}:role/orders-client';

  it('accepts role and user ARNs, with {account} or a literal account', () => {
    expect(
      build([
        { name: 'web-shop', principal: ok },
        { name: 'partner-2', principal: 'arn:aws:iam::123456789012:user/partner' },
      ]),
    ).not.toThrow();
  });

  it.each([
    [[], /at least one client is required/],
    [[{ name: 'Web_Shop', principal: ok }], /clients\[0\] 'Web_Shop': the name must be 3-32 characters/],
    [
      [
        { name: 'web-shop', principal: ok },
        { name: 'web-shop', principal: ok },
      ],
      /clients\[1\] 'web-shop': the name appears twice/,
    ],
    [
      [{ name: 'web-shop', principal: 'web-shop-role' }],
      /principal 'web-shop-role' is not an IAM role or user ARN/,
    ],
    [
      [{ name: 'web-shop', principal: 'arn:aws:iam::123:role/x' }],
      /principal 'arn:aws:iam::123:role\/x' is not an IAM role or user ARN/,
    ],
    [[{ name: 'web-shop', principal: '*' }], /principal '\*' is not an IAM role or user ARN/],
  ])('refuses %j', (clients, message) => {
    expect(build(clients)).toThrow(message);
  });
});
