/**
 * IAM in the SQS service over real HTTP with the real SDK (and the AWS CLI): every request is
 * authenticated against the local account's credentials and authorized with the caller's identity
 * policies and the queue's policy (the real evaluator, lib/local-runtime/iam); a queue under a
 * customer-managed key needs the caller's use of the key; a service delivering for a resource (SNS
 * for a topic) is allowed only by the queue's policy. Refusals are SQS's: AccessDenied (403),
 * KmsAccessDenied, MissingAuthenticationToken, InvalidClientTokenId, SignatureDoesNotMatch.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  AddPermissionCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  RemovePermissionCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { startSqsEmulator } from '../../../../lib/local-runtime/emulators';
import type { CallerCredentials } from '../../../../lib/local-runtime/iam';
import { compilePolicy } from '../../../../lib/local-runtime/iam/policy-document';
import { servicePrincipal } from '../../../../lib/local-runtime/iam/principals';
import type { RunningSqsService } from '../../../../lib/local-runtime/sqs';
import {
  TEST_ACCOUNT,
  TEST_REGION,
  TEST_ROOT,
  type TestAccount,
  testAccount,
} from '../../../support/local-iam';

describe('SQS service: IAM', () => {
  let account: TestAccount;
  let server: RunningSqsService;
  const clients: SQSClient[] = [];
  const sqsAs = (caller: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) => {
    const sqs = new SQSClient({
      endpoint: server.endpoint,
      region: TEST_REGION,
      credentials: caller,
      maxAttempts: 1,
    });
    clients.push(sqs);
    return sqs;
  };
  let asRoot: SQSClient;

  beforeAll(async () => {
    account = testAccount();
    server = await startSqsEmulator({ region: TEST_REGION, accountId: TEST_ACCOUNT, iam: account.iam });
    asRoot = sqsAs(TEST_ROOT);
  });
  afterAll(async () => {
    for (const sqs of clients) sqs.destroy();
    await server.stop();
  });

  let queueCounter = 0;
  /** A queue made by the root, with these attributes (a policy built from its ARN). */
  async function queue(
    options: { fifo?: boolean; policy?: (arn: string) => unknown; attributes?: Record<string, string> } = {},
  ): Promise<{ url: string; arn: string }> {
    queueCounter += 1;
    const name = `iam-${queueCounter}${options.fifo ? '.fifo' : ''}`;
    const arn = `arn:aws:sqs:${TEST_REGION}:${TEST_ACCOUNT}:${name}`;
    const { QueueUrl } = await asRoot.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          ...(options.fifo ? { FifoQueue: 'true', ContentBasedDeduplication: 'true' } : {}),
          ...options.attributes,
          ...(options.policy ? { Policy: JSON.stringify(options.policy(arn)) } : {}),
        },
      }),
    );
    return { url: QueueUrl as string, arn };
  }
  let callerCounter = 0;
  /** A role session with these identity statements, as a client of its own. */
  const roleWith = (statements: unknown[]): { caller: CallerCredentials; sqs: SQSClient } => {
    callerCounter += 1;
    const caller = account.role(`sqs-caller-${callerCounter}`, statements);
    return { caller, sqs: sqsAs(account.sdkCredentials(caller)) };
  };
  const userWith = (statements: unknown[] = []): { caller: CallerCredentials; sqs: SQSClient } => {
    callerCounter += 1;
    const caller = account.user(`sqs-user-${callerCounter}`, statements);
    return { caller, sqs: sqsAs(account.sdkCredentials(caller)) };
  };

  const receive = (sqs: SQSClient, QueueUrl: string) =>
    sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  const refusal = async (call: Promise<unknown>): Promise<SQSServiceException> => {
    const error = await call.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!(error instanceof SQSServiceException))
      throw new Error(`expected an SQS error, got ${String(error)}`);
    return error;
  };

  describe('identity policies', () => {
    it('lets a role send and receive what its policy allows on the queue', async () => {
      const { url, arn } = await queue();
      const { sqs } = roleWith([
        { Effect: 'Allow', Action: ['sqs:SendMessage', 'sqs:ReceiveMessage'], Resource: arn },
      ]);
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'hello' }));
      expect((await receive(sqs, url)).Messages?.map((message) => message.Body)).toEqual(['hello']);
    });

    it('answers AccessDenied (403) naming principal, action and resource, and changes nothing', async () => {
      const { url, arn } = await queue();
      const { caller, sqs } = roleWith([{ Effect: 'Allow', Action: 'sqs:ReceiveMessage', Resource: arn }]);
      const error = await refusal(sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'forged' })));
      expect(error.name).toBe('AccessDenied');
      expect(error.$fault).toBe('client');
      expect(error.$metadata.httpStatusCode).toBe(403);
      expect(error.message).toBe(
        `User: ${caller.principal.arn} is not authorized to perform: sqs:SendMessage on resource: ${arn} because no identity-based policy allows the sqs:SendMessage action`,
      );
      expect((await receive(asRoot, url)).Messages).toBeUndefined();
    });

    it('authorizes the batches as their single actions', async () => {
      const { url, arn } = await queue();
      const { sqs } = roleWith([{ Effect: 'Allow', Action: 'sqs:ReceiveMessage', Resource: arn }]);
      const send = await refusal(
        sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a', MessageBody: 'x' }] })),
      );
      expect(send.message).toContain('perform: sqs:SendMessage on');
      await asRoot.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' }));
      const handle = (await receive(sqs, url)).Messages?.[0]?.ReceiptHandle;
      const batch = await refusal(
        sqs.send(
          new DeleteMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a', ReceiptHandle: handle }] }),
        ),
      );
      expect(batch.message).toContain('perform: sqs:DeleteMessage on');
      const visibility = await refusal(
        sqs.send(
          new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: handle, VisibilityTimeout: 0 }),
        ),
      );
      expect(visibility.message).toContain('perform: sqs:ChangeMessageVisibility on');
    });

    it('authorizes ListQueues on * and CreateQueue on the ARN of the queue to be', async () => {
      const { sqs } = userWith();
      const list = await refusal(sqs.send(new ListQueuesCommand({})));
      expect(list.message).toMatch(/perform: sqs:ListQueues because no identity-based policy allows/);
      const create = await refusal(sqs.send(new CreateQueueCommand({ QueueName: 'not-yours' })));
      expect(create.message).toContain(
        `sqs:CreateQueue on resource: arn:aws:sqs:${TEST_REGION}:${TEST_ACCOUNT}:not-yours`,
      );
      const lister = userWith([{ Effect: 'Allow', Action: 'sqs:ListQueues', Resource: '*' }]);
      await lister.sqs.send(new ListQueuesCommand({}));
    });
  });

  describe('queue policies', () => {
    /** A reply queue only `principal` consumes: the app's ClientReplyQueues shape. */
    const clientOnly = (principal: string) => (arn: string) => ({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'OnlyTheClientConsumes',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:ReceiveMessage'],
          Resource: arn,
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': principal } },
        },
        {
          Sid: 'TheClientConsumes',
          Effect: 'Allow',
          Principal: { AWS: principal },
          Action: ['sqs:ReceiveMessage', 'sqs:DeleteMessage'],
          Resource: arn,
        },
      ],
    });

    it('lets the principal a queue policy names consume without any identity policy', async () => {
      const client = userWith();
      const { url } = await queue({ policy: clientOnly(client.caller.principal.arn) });
      await asRoot.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'status-1' }));
      const { Messages = [] } = await receive(client.sqs, url);
      expect(Messages.map((message) => message.Body)).toEqual(['status-1']);
      await client.sqs.send(
        new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: Messages[0]?.ReceiptHandle }),
      );
    });

    it('denies everyone else by its explicit Deny, the root and an identity-allowed role included', async () => {
      const client = userWith();
      const { url, arn } = await queue({ policy: clientOnly(client.caller.principal.arn) });
      await asRoot.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'status-1' }));
      const other = roleWith([{ Effect: 'Allow', Action: 'sqs:*', Resource: '*' }]);
      for (const [sqs, arnOfCaller] of [
        [other.sqs, other.caller.principal.arn],
        [asRoot, `arn:aws:iam::${TEST_ACCOUNT}:root`],
      ] as const) {
        const error = await refusal(receive(sqs, url));
        expect(error.name).toBe('AccessDenied');
        expect(error.message).toBe(
          `User: ${arnOfCaller} is not authorized to perform: sqs:ReceiveMessage on resource: ${arn} with an explicit deny in a resource-based policy`,
        );
      }
      expect((await receive(client.sqs, url)).Messages).toHaveLength(1);
    });

    it('refuses a policy the evaluator cannot take (InvalidAttributeValue), and keeps the old one', async () => {
      const client = userWith();
      const { url } = await queue({ policy: clientOnly(client.caller.principal.arn) });
      const error = await refusal(
        asRoot.send(
          new SetQueueAttributesCommand({
            QueueUrl: url,
            Attributes: {
              Policy: JSON.stringify({
                Statement: [
                  {
                    Effect: 'Allow',
                    Principal: '*',
                    Action: 'sqs:*',
                    Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } },
                  },
                ],
              }),
            },
          }),
        ),
      );
      expect(error.name).toBe('InvalidAttributeValue');
      expect(error.message).toContain('aws:SourceIp');
      expect((await refusal(receive(roleWith([]).sqs, url))).name).toBe('AccessDenied');
    });

    it('takes the AWS CLI’s signature too: the client receives, another identity is denied', async () => {
      const client = userWith();
      const other = userWith();
      const { url } = await queue({ policy: clientOnly(client.caller.principal.arn) });
      await asRoot.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'for the CLI' }));
      const cli = (caller: CallerCredentials) =>
        promisify(execFile)(
          'aws',
          [
            'sqs',
            'receive-message',
            '--queue-url',
            url,
            '--endpoint-url',
            server.endpoint,
            '--region',
            TEST_REGION,
          ],
          {
            env: {
              PATH: process.env.PATH,
              HOME: process.env.HOME,
              AWS_ACCESS_KEY_ID: caller.accessKeyId,
              AWS_SECRET_ACCESS_KEY: caller.secretAccessKey,
            },
          },
        );
      const denied = await cli(other.caller).then(
        () => '',
        (error: { stderr?: string }) => error.stderr ?? '',
      );
      expect(denied).toContain('(AccessDenied)');
      const { stdout } = await cli(client.caller);
      expect((JSON.parse(stdout) as { Messages: Array<{ Body: string }> }).Messages[0]?.Body).toBe(
        'for the CLI',
      );
    });
  });

  describe('a queue only one sender sends to and only one administrator administers', () => {
    /** The app's reply-queue statements on sending and administration (ClientReplyQueues). */
    const senderAndAdministrator = (sender: string, administrator: string) => (arn: string) => ({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'OnlyTheNotifierSends',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'sqs:SendMessage',
          Resource: arn,
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': sender } },
        },
        {
          Sid: 'OnlyTheDeployerAdministers',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: [
            'sqs:PurgeQueue',
            'sqs:SetQueueAttributes',
            'sqs:AddPermission',
            'sqs:RemovePermission',
            'sqs:DeleteQueue',
          ],
          Resource: arn,
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': administrator } },
        },
      ],
    });
    const everything = [{ Effect: 'Allow', Action: 'sqs:*', Resource: '*' }];
    /** The role of a session (what aws:PrincipalArn holds for it). */
    const roleArnOf = (caller: CallerCredentials): string => {
      if (caller.principal.kind !== 'role-session')
        throw new Error(`${caller.principal.arn} is no role session`);
      return caller.principal.roleArn;
    };
    /** Every administrative call on the queue, as `sqs` makes it. */
    const administrations = (sqs: SQSClient, QueueUrl: string) =>
      [
        ['sqs:PurgeQueue', () => sqs.send(new PurgeQueueCommand({ QueueUrl }))],
        [
          'sqs:SetQueueAttributes',
          () => sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { Policy: '' } })),
        ],
        [
          'sqs:AddPermission',
          () =>
            sqs.send(
              new AddPermissionCommand({
                QueueUrl,
                Label: 'open',
                AWSAccountIds: [TEST_ACCOUNT],
                Actions: ['SendMessage'],
              }),
            ),
        ],
        [
          'sqs:RemovePermission',
          () => sqs.send(new RemovePermissionCommand({ QueueUrl, Label: 'OnlyTheNotifierSends' })),
        ],
        ['sqs:DeleteQueue', () => sqs.send(new DeleteQueueCommand({ QueueUrl }))],
      ] as const;

    it('refuses SendMessage and every administration to a role its identity policy allows sqs:*, and to the root, by the explicit Deny', async () => {
      const sender = roleWith([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: '*' }]);
      const administrator = roleWith(everything);
      const { url, arn } = await queue({
        policy: senderAndAdministrator(roleArnOf(sender.caller), roleArnOf(administrator.caller)),
      });
      const other = roleWith(everything);
      for (const [sqs, callerArn] of [
        [other.sqs, other.caller.principal.arn],
        [asRoot, `arn:aws:iam::${TEST_ACCOUNT}:root`],
      ] as const) {
        const forged = await refusal(
          sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'forged' })),
        );
        expect(forged.name).toBe('AccessDenied');
        expect(forged.message).toBe(
          `User: ${callerArn} is not authorized to perform: sqs:SendMessage on resource: ${arn} with an explicit deny in a resource-based policy`,
        );
        for (const [action, call] of administrations(sqs, url)) {
          const error = await refusal(call());
          expect([action, error.name, error.$metadata.httpStatusCode]).toEqual([action, 'AccessDenied', 403]);
          expect(error.message).toContain(`perform: ${action} on resource: ${arn} with an explicit deny`);
        }
      }
      // Nothing changed: the queue, its policy and its (empty) contents are as they were.
      const { Attributes } = await administrator.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['Policy', 'ApproximateNumberOfMessages'],
        }),
      );
      expect(JSON.parse(Attributes?.Policy ?? '{}')).toEqual(
        senderAndAdministrator(roleArnOf(sender.caller), roleArnOf(administrator.caller))(arn),
      );
      expect(Attributes?.ApproximateNumberOfMessages).toBe('0');
    });

    it('lets the named sender send and the named administrator purge, edit the policy and delete', async () => {
      const sender = roleWith([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: '*' }]);
      const administrator = roleWith(everything);
      const { url, arn } = await queue({
        policy: senderAndAdministrator(roleArnOf(sender.caller), roleArnOf(administrator.caller)),
      });
      await sender.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'status' }));
      const policyOf = async () =>
        (
          await administrator.sqs.send(
            new GetQueueAttributesCommand({
              QueueUrl: url,
              AttributeNames: ['Policy', 'ApproximateNumberOfMessages'],
            }),
          )
        ).Attributes ?? {};
      expect((await policyOf()).ApproximateNumberOfMessages).toBe('1');
      await administrator.sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
      expect((await policyOf()).ApproximateNumberOfMessages).toBe('0');
      await administrator.sqs.send(
        new AddPermissionCommand({
          QueueUrl: url,
          Label: 'partner',
          AWSAccountIds: ['111122223333'],
          Actions: ['SendMessage', 'GetQueueUrl'],
        }),
      );
      const added = JSON.parse((await policyOf()).Policy ?? '{}') as { Statement: unknown[] };
      expect(added.Statement.at(-1)).toEqual({
        Sid: 'partner',
        Effect: 'Allow',
        Principal: { AWS: 'arn:aws:iam::111122223333:root' },
        Action: ['SQS:SendMessage', 'SQS:GetQueueUrl'],
        Resource: arn,
      });
      const twice = await refusal(
        administrator.sqs.send(
          new AddPermissionCommand({
            QueueUrl: url,
            Label: 'partner',
            AWSAccountIds: ['111122223333'],
            Actions: ['SendMessage'],
          }),
        ),
      );
      expect([twice.name, twice.message]).toEqual([
        'InvalidParameterValue',
        'Value partner for parameter Label is invalid. Reason: Already exists.',
      ]);
      await administrator.sqs.send(new RemovePermissionCommand({ QueueUrl: url, Label: 'partner' }));
      expect(JSON.parse((await policyOf()).Policy ?? '{}')).toEqual(
        senderAndAdministrator(roleArnOf(sender.caller), roleArnOf(administrator.caller))(arn),
      );
      const unknown = await refusal(
        administrator.sqs.send(new RemovePermissionCommand({ QueueUrl: url, Label: 'partner' })),
      );
      expect(unknown.name).toBe('InvalidParameterValue');
      await administrator.sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
      expect((await refusal(policyOf())).name).toBe('QueueDoesNotExist');
    });
  });

  describe('authentication', () => {
    it('refuses an unsigned request (MissingAuthenticationToken, 403)', async () => {
      const { url } = await queue();
      const answer = await fetch(server.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ReceiveMessage' },
        body: JSON.stringify({ QueueUrl: url }),
      });
      expect(answer.status).toBe(403);
      expect(answer.headers.get('x-amzn-query-error')).toBe('MissingAuthenticationToken;Sender');
    });

    it('refuses an unknown access key, a missing session token and a wrong secret', async () => {
      const { url } = await queue();
      const unknown = await refusal(receive(sqsAs({ accessKeyId: 'stranger', secretAccessKey: 'x' }), url));
      expect([unknown.name, unknown.$metadata.httpStatusCode]).toEqual(['InvalidClientTokenId', 403]);
      const session = account.role('sqs-tokenless', [{ Effect: 'Allow', Action: 'sqs:*', Resource: '*' }]);
      const tokenless = await refusal(
        receive(sqsAs({ accessKeyId: session.accessKeyId, secretAccessKey: session.secretAccessKey }), url),
      );
      expect(tokenless.name).toBe('InvalidClientTokenId');
      const forged = await refusal(receive(sqsAs({ ...TEST_ROOT, secretAccessKey: 'not-the-secret' }), url));
      expect([forged.name, forged.$metadata.httpStatusCode]).toEqual(['SignatureDoesNotMatch', 403]);
    });
  });

  describe('customer-managed keys', () => {
    const keyArn = `arn:aws:kms:${TEST_REGION}:${TEST_ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
    beforeAll(() => {
      // The default key policy: the account enables identity policies; SNS may use it for its topics.
      account.iam.keys.define({
        arn: keyArn,
        keyId: '1234abcd-12ab-34cd-56ef-1234567890ab',
        declaredAt: 'test/QueueKey',
        policy: compilePolicy('key policy of QueueKey', 'resource', {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { AWS: `arn:aws:iam::${TEST_ACCOUNT}:root` },
              Action: 'kms:*',
              Resource: '*',
            },
            {
              Effect: 'Allow',
              Principal: { Service: 'sns.amazonaws.com' },
              Action: ['kms:GenerateDataKey*', 'kms:Decrypt'],
              Resource: '*',
            },
          ],
        }),
      });
    });

    it('needs kms:GenerateDataKey and kms:Decrypt to send, kms:Decrypt to receive (KmsAccessDenied)', async () => {
      const { url, arn } = await queue({ attributes: { KmsMasterKeyId: keyArn } });
      const sqsOnly = roleWith([
        { Effect: 'Allow', Action: ['sqs:SendMessage', 'sqs:ReceiveMessage'], Resource: arn },
      ]);
      const send = await refusal(
        sqsOnly.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' })),
      );
      expect(send.name).toBe('KmsAccessDenied');
      expect(send.message).toContain(`perform: kms:GenerateDataKey on resource: ${keyArn}`);
      expect((await receive(asRoot, url)).Messages).toBeUndefined();
      const withKey = roleWith([
        { Effect: 'Allow', Action: ['sqs:SendMessage', 'sqs:ReceiveMessage'], Resource: arn },
        { Effect: 'Allow', Action: ['kms:GenerateDataKey', 'kms:Decrypt'], Resource: keyArn },
      ]);
      await withKey.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'sealed' }));
      const read = await refusal(receive(sqsOnly.sqs, url));
      expect(read.message).toContain(`perform: kms:Decrypt on resource: ${keyArn}`);
      expect((await receive(withKey.sqs, url)).Messages?.map((message) => message.Body)).toEqual(['sealed']);
    });

    it('leaves a queue under the AWS managed key to SQS permissions alone', async () => {
      const { url, arn } = await queue({ attributes: { KmsMasterKeyId: 'alias/aws/sqs' } });
      const sqsOnly = roleWith([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: arn }]);
      await sqsOnly.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' }));
    });
  });

  describe('deliveries by a service for a resource', () => {
    const sns = servicePrincipal('sns.amazonaws.com');
    const topicArn = `arn:aws:sns:${TEST_REGION}:${TEST_ACCOUNT}:alerts`;
    /** What SNS delivering for `topic` carries (aws:SourceArn, aws:SourceAccount). */
    const sourceContext = (topic: string) => ({ 'aws:sourcearn': topic, 'aws:sourceaccount': TEST_ACCOUNT });
    /** SNS delivering for `topic`, asked as the runtime asks it of its deliveries. */
    const snsDelivers = (arn: string, topic: string) =>
      server.queueAuthorizer.authorizeQueue(sns, 'sqs:SendMessage', arn, {
        ...server.queueSecurity(arn),
        context: sourceContext(topic),
      });
    const topicMaySend = (topic: string) => (arn: string) => ({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { Service: 'sns.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Resource: arn,
          Condition: { ArnEquals: { 'aws:SourceArn': topic } },
        },
      ],
    });

    it('refuses SNS on a queue without a policy that allows it', async () => {
      const { arn } = await queue();
      const verdict = snsDelivers(arn, topicArn);
      expect(verdict).toMatchObject({
        allowed: false,
        message: `User: sns.amazonaws.com is not authorized to perform: sqs:SendMessage on resource: ${arn} because no resource-based policy allows the sqs:SendMessage action`,
      });
    });

    it('allows SNS for the topic the queue policy names, and not for another topic', async () => {
      const { arn } = await queue({ policy: topicMaySend(topicArn) });
      expect(snsDelivers(arn, topicArn).allowed).toBe(true);
      expect(snsDelivers(arn, `${topicArn}-other`).allowed).toBe(false);
    });
  });
});
