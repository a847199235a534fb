/**
 * Queue policies' explicit denies over real HTTP with the real SDK: a request signed by a local
 * identity is that identity's user (signature verified, service sqs); any other is the runtime's
 * default principal. A Deny of every principal but the client's lets the client receive and delete,
 * and answers AccessDenied (403, as SQS does) to another identity and to the default principal.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { startSqsEmulator } from '../../../../lib/local-runtime/emulators';
import type { RunningServer } from '../../../../lib/local-runtime/http-server';
import { LocalIdentities, type LocalIdentity } from '../../../../lib/local-runtime/identities';
import { defaultPrincipalArn } from '../../../../lib/local-runtime/sqs';

const REGION = 'eu-west-1';
const ACCOUNT = '000000000000';

describe('SQS service: queue policies deny by caller', () => {
  let server: RunningServer;
  let identities: LocalIdentities;
  let client: LocalIdentity;
  let other: LocalIdentity;
  const problems: string[] = [];
  const clients: SQSClient[] = [];
  const sqsAs = (credentials: { accessKeyId: string; secretAccessKey: string }) => {
    const sqs = new SQSClient({ endpoint: server.endpoint, region: REGION, credentials, maxAttempts: 1 });
    clients.push(sqs);
    return sqs;
  };
  let asClient: SQSClient;
  let asOther: SQSClient;
  let asDefault: SQSClient;

  beforeAll(async () => {
    identities = new LocalIdentities(undefined, ACCOUNT);
    client = identities.identity('web-shop');
    other = identities.identity('call-center');
    server = await startSqsEmulator({
      region: REGION,
      accountId: ACCOUNT,
      identities,
      onPolicyProblem: (queueName, problem) => problems.push(`${queueName}: ${problem}`),
    });
    asClient = sqsAs(client);
    asOther = sqsAs(other);
    asDefault = sqsAs({ accessKeyId: 'local', secretAccessKey: 'local' });
  });
  afterAll(async () => {
    for (const sqs of clients) sqs.destroy();
    await server.stop();
  });

  let queueCounter = 0;
  /** A FIFO queue only `principal` may consume, made and configured by the default principal. */
  async function clientQueue(principal = client.userArn): Promise<{ url: string; arn: string }> {
    queueCounter += 1;
    const { QueueUrl } = await asDefault.send(
      new CreateQueueCommand({
        QueueName: `replies-${queueCounter}.fifo`,
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    );
    const url = QueueUrl as string;
    const arn = `arn:aws:sqs:${REGION}:${ACCOUNT}:replies-${queueCounter}.fifo`;
    const Policy = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'sqs:*',
          Resource: arn,
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        },
        {
          Sid: 'OnlyTheClientConsumes',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:ReceiveMessage'],
          Resource: arn,
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': principal } },
        },
        { Effect: 'Allow', Principal: { AWS: principal }, Action: 'sqs:ReceiveMessage', Resource: arn },
      ],
    });
    await asDefault.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Policy } }));
    return { url, arn };
  }

  const send = (sqs: SQSClient, QueueUrl: string, body: string) =>
    sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body, MessageGroupId: 'order-1' }));
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

  it('lets the client receive and delete what the default principal sent', async () => {
    const { url } = await clientQueue();
    await send(asDefault, url, 'status-1');
    const { Messages = [] } = await receive(asClient, url);
    expect(Messages.map((message) => message.Body)).toEqual(['status-1']);
    await asClient.send(
      new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: Messages[0]?.ReceiptHandle }),
    );
    expect((await receive(asClient, url)).Messages).toBeUndefined();
  });

  it('answers AccessDenied to another identity, as SQS does, and leaves the messages where they are', async () => {
    const { url, arn } = await clientQueue();
    await send(asDefault, url, 'status-1');
    const error = await refusal(receive(asOther, url));
    expect(error.name).toBe('AccessDenied');
    expect(error.$fault).toBe('client');
    expect(error.$metadata.httpStatusCode).toBe(403);
    expect(error.message).toBe(
      `User: ${other.userArn} is not authorized to perform: sqs:receivemessage on resource: ${arn} with an explicit deny in a resource-based policy`,
    );
    expect((await receive(asClient, url)).Messages?.map((message) => message.Body)).toEqual(['status-1']);
  });

  it('denies the default principal too: it is not the client', async () => {
    const { url, arn } = await clientQueue();
    await send(asDefault, url, 'status-1');
    const error = await refusal(receive(asDefault, url));
    expect(error.name).toBe('AccessDenied');
    expect(error.message).toContain(`User: ${defaultPrincipalArn(ACCOUNT)} is not authorized`);
    expect(error.message).toContain(arn);
  });

  it('authorizes a batch as its single action, and a visibility change as ChangeMessageVisibility', async () => {
    const { url } = await clientQueue();
    await send(asDefault, url, 'status-1');
    const { Messages = [] } = await receive(asClient, url);
    const handle = Messages[0]?.ReceiptHandle;
    const batch = await refusal(
      asOther.send(
        new DeleteMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a', ReceiptHandle: handle }] }),
      ),
    );
    expect(batch.message).toContain('sqs:deletemessage');
    const visibility = await refusal(
      asOther.send(
        new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: handle, VisibilityTimeout: 0 }),
      ),
    );
    expect(visibility.message).toContain('sqs:changemessagevisibility');
    await asClient.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: handle }));
  });

  it('lets anyone do what no Deny names: another identity sends and reads the attributes', async () => {
    const { url } = await clientQueue();
    await send(asOther, url, 'from another');
    const { Attributes } = await asOther.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    expect(Attributes?.ApproximateNumberOfMessages).toBe('1');
  });

  it('refuses a request signed with a known access key and the wrong secret', async () => {
    const { url } = await clientQueue();
    const forged = sqsAs({ accessKeyId: client.accessKeyId, secretAccessKey: 'not-the-secret' });
    const error = await refusal(receive(forged, url));
    expect(error.name).toBe('SignatureDoesNotMatch');
    expect(error.$metadata.httpStatusCode).toBe(403);
  });

  it('treats an unknown access key as the default principal, denied like it', async () => {
    const { url } = await clientQueue();
    const stranger = sqsAs({ accessKeyId: 'stranger', secretAccessKey: 'whatever' });
    expect((await refusal(receive(stranger, url))).message).toContain(defaultPrincipalArn(ACCOUNT));
  });

  it('lets the default principal consume a queue whose policy names it, and a queue without policy', async () => {
    const { url } = await clientQueue(defaultPrincipalArn(ACCOUNT));
    await send(asDefault, url, 'for the account');
    expect((await receive(asDefault, url)).Messages).toHaveLength(1);
    const { QueueUrl } = await asDefault.send(new CreateQueueCommand({ QueueName: 'no-policy' }));
    await asDefault.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }));
    expect((await receive(asOther, QueueUrl as string)).Messages).toHaveLength(1);
  });

  it('tells once what of a policy set at run time it does not evaluate, and applies the rest', async () => {
    const { url, arn } = await clientQueue();
    const Policy = JSON.stringify({
      Statement: [
        {
          Sid: 'FromTheOffice',
          Effect: 'Deny',
          Principal: '*',
          Action: 'sqs:SendMessage',
          Resource: arn,
          Condition: { NotIpAddress: { 'aws:SourceIp': '10.0.0.0/8' } },
        },
      ],
    });
    problems.length = 0;
    await asDefault.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Policy } }));
    await asDefault.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Policy } }));
    expect(problems).toEqual([
      expect.stringMatching(
        /^replies-\d+\.fifo: Deny statement FromTheOffice does not apply locally: condition operator NotIpAddress on key aws:SourceIp/,
      ),
    ]);
    await send(asOther, url, 'not denied: the statement does not apply');
    // The new policy replaced the client-only one: another identity may now receive.
    expect((await receive(asOther, url)).Messages).toHaveLength(1);
  });

  it('takes the AWS CLI’s signature too: the client receives, another identity is denied', async () => {
    const { url } = await clientQueue();
    await send(asDefault, url, 'for the CLI');
    const cli = (identity: LocalIdentity) =>
      promisify(execFile)(
        'aws',
        ['sqs', 'receive-message', '--queue-url', url, '--endpoint-url', server.endpoint, '--region', REGION],
        {
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            AWS_ACCESS_KEY_ID: identity.accessKeyId,
            AWS_SECRET_ACCESS_KEY: identity.secretAccessKey,
          },
        },
      );
    const denied = await cli(other).then(
      () => '',
      (error: { stderr?: string }) => error.stderr ?? '',
    );
    expect(denied).toContain('(AccessDenied)');
    const { stdout } = await cli(client);
    expect((JSON.parse(stdout) as { Messages: Array<{ Body: string }> }).Messages[0]?.Body).toBe(
      'for the CLI',
    );
  });
});
