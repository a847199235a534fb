/**
 * The local runtime against a purpose-built CDK app (fixtures/app.ts), synthesized and bundled
 * in-process, then run with startLocalRuntime: every event source is driven through its real
 * front door (HTTP, SQS, schedule, PutEvents) and checked by its effect on the emulators.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Sha256 } from '@aws-crypto/sha256-js';
import { DescribeTableCommand, DynamoDBClient, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import {
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { SignatureV4 } from '@smithy/signature-v4';
import { sendSigned } from '../../../lambdas/shared/signed-request';
import {
  type LocalRuntime,
  type LocalRuntimeObserver,
  type LocalTarget,
  PROJECT_ROOT,
  startLocalRuntime,
} from '../../../lib/local-runtime';
import { synthesizeFixtureApp } from './fixtures/app';

jest.setTimeout(120_000);

interface Seen {
  readonly sandboxId: string;
  readonly invocationsInThisSandbox: number;
  readonly functionName: string;
  readonly awsRequestId: string;
  readonly remainingMillis: number;
  readonly env: Record<string, string | undefined>;
}

/** An observer that records what it was started with and whether it was stopped. */
function recordingObserver() {
  const seen: { target?: LocalTarget; tableStatus?: string; stopped: boolean } = { stopped: false };
  const observer: LocalRuntimeObserver = {
    name: 'recording observer',
    start: async ({ target, sdkConfig, log }) => {
      seen.target = target;
      const dynamodb = new DynamoDBClient(sdkConfig('dynamodb'));
      const { Table } = await dynamodb.send(
        new DescribeTableCommand({ TableName: target.outputs.TableName }),
      );
      seen.tableStatus = Table?.TableStatus;
      log('recording observer started');
      return {
        stop: async () => {
          dynamodb.destroy();
          seen.stopped = true;
        },
      };
    },
  };
  return { observer, seen };
}

describe('local runtime running a synthesized app', () => {
  let workDir: string;
  const recording = recordingObserver();
  let runtime: LocalRuntime;
  let targetFile: string;
  let dynamodb: DynamoDBClient;
  let sqs: SQSClient;
  const logLines: string[] = [];
  let outputs: Record<string, string>;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'local-runtime-it-'));
    synthesizeFixtureApp(join(workDir, 'cdk.out'));
    targetFile = join(workDir, 'target.json');
    // Set on the host only: a function must not see it (Lambda does not inherit the caller's env).
    process.env.HOST_ONLY = 'leaked';
    runtime = await startLocalRuntime({
      assemblyDir: join(workDir, 'cdk.out'),
      port: 0,
      targetFile,
      log: (line) => logLines.push(line),
      functionLogDir: join(workDir, 'logs'),
      observers: [recording.observer],
    });
    outputs = runtime.target.outputs;
    const config = { region: runtime.target.region, credentials: runtime.target.credentials };
    dynamodb = new DynamoDBClient({ ...config, endpoint: runtime.target.endpoints.dynamodb });
    sqs = new SQSClient({ ...config, endpoint: runtime.target.endpoints.sqs });
  });

  afterAll(async () => {
    delete process.env.HOST_ONLY;
    dynamodb?.destroy();
    sqs?.destroy();
    await runtime?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const api = (path: string, init?: RequestInit) => fetch(`${outputs.ApiUrl}${path}`, init);

  async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMillis = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMillis;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const itemExists = async (pk: string) =>
    (
      await dynamodb.send(
        new GetItemCommand({ TableName: outputs.TableName, Key: { pk: { S: pk } }, ConsistentRead: true }),
      )
    ).Item;

  it('writes a target description with the outputs resolved to local names and URLs', () => {
    const written = JSON.parse(readFileSync(targetFile, 'utf8')) as Record<string, unknown>;
    expect(written).toMatchObject({ kind: 'local', region: 'us-east-1', outputs: runtime.target.outputs });
    // It holds secrets: readable by the developer only.
    expect(statSync(targetFile).mode & 0o777).toBe(0o600);
    expect(outputs.ApiUrl).toMatch(/^http:\/\/localhost:\d+\/test\/$/);
    expect(outputs.TableName).toBe('LocalRuntimeFixture-TableCD117FA1');
    expect(outputs.QueueUrl).toBe(
      `${runtime.target.endpoints.sqs}/000000000000/LocalRuntimeFixture-WorkQueue94013F35`,
    );
    expect(outputs.FunctionUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(runtime.target.apiKey).toEqual(expect.any(String));
  });

  it('starts observers with the target and SDK settings of the running system', () => {
    expect(recording.seen.target).toEqual(runtime.target);
    expect(recording.seen.tableStatus).toBe('ACTIVE');
    expect(logLines).toContain('recording observer started');
    expect(recording.seen.stopped).toBe(false);
  });

  it('meters only when asked to (metering: true)', () => {
    expect(() => runtime.usage()).toThrow('The local runtime meters only when started with metering: true');
  });

  it('names every resource it cannot run and lists the inert ones once', () => {
    expect(runtime.unsupported).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ logicalId: 'Uploads4F6EB0FD', type: 'AWS::S3::Bucket' }),
      ]),
    );
    // Usage plans run (their throttles are enforced; the fixture's plan sets none).
    expect(runtime.unsupported).not.toContainEqual(
      expect.objectContaining({ type: 'AWS::ApiGateway::UsagePlan' }),
    );
    expect(logLines).toContain(
      'not run locally: Uploads4F6EB0FD (AWS::S3::Bucket) in LocalRuntimeFixture: resource type not emulated',
    );
    expect(runtime.inert).toEqual(expect.arrayContaining(['AWS::ApiGateway::Deployment']));
    expect(runtime.inert).not.toContain('AWS::IAM::Role');
    expect(logLines.filter((line) => line.startsWith('not emulated (no effect locally)'))).toHaveLength(1);
  });

  it('enforces a queue policy (the reader it allows reads; its explicit Deny refuses the account’s root), with an identity for the user it names', async () => {
    const reader = runtime.target.identities?.['fixture-reader'];
    expect(reader?.userArn).toBe('arn:aws:iam::000000000000:user/fixture-reader');
    const QueueUrl = outputs.RepliesQueueUrl;
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'for the reader' }));
    await expect(sqs.send(new ReceiveMessageCommand({ QueueUrl }))).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    const asReader = new SQSClient({
      region: runtime.target.region,
      endpoint: runtime.target.endpoints.sqs,
      credentials: reader as NonNullable<typeof reader>,
    });
    const { Messages = [] } = await asReader.send(new ReceiveMessageCommand({ QueueUrl }));
    asReader.destroy();
    expect(Messages.map((message) => message.Body)).toEqual(['for the reader']);
  });

  it('warns at start that DynamoDB Local listens on every interface (no option of it or its JVM binds it to loopback)', () => {
    expect(
      logLines.filter((line) => line.includes('DynamoDB Local listens on every network interface')),
    ).toEqual([
      expect.stringMatching(
        /^! DynamoDB Local listens on every network interface \(port \d+\): neither it nor its JVM/,
      ),
    ]);
  });

  it('provisions as the stack’s CloudFormation execution role: a policy denying administration to every other principal refuses the root', async () => {
    const QueueUrl = outputs.RepliesQueueUrl;
    for (const call of [
      () => sqs.send(new PurgeQueueCommand({ QueueUrl })),
      () => sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { Policy: '' } })),
    ]) {
      await expect(call()).rejects.toMatchObject({
        name: 'AccessDenied',
        message: expect.stringContaining('with an explicit deny in a resource-based policy'),
      });
    }
    // The runtime set that policy as the execution role; the restart on a data directory below
    // sets it again over the one kept.
  });

  it('routes an API Gateway request to the Lambda as a v1 proxy event, with the env resolved locally', async () => {
    const response = await api('items/abc%20d?x=1&x=2', { headers: { 'X-Custom': 'yes' } });
    expect(response.status).toBe(200);
    const { event, seen } = (await response.json()) as {
      event: { headers: Record<string, string> };
      seen: Seen;
    };
    expect(event).toMatchObject({
      resource: '/items/{itemId}',
      path: '/items/abc%20d',
      httpMethod: 'GET',
      pathParameters: { itemId: 'abc d' },
      queryStringParameters: { x: '2' },
      multiValueQueryStringParameters: { x: ['1', '2'] },
      requestContext: { stage: 'test', resourcePath: '/items/{itemId}', requestId: expect.any(String) },
      body: null,
    });
    expect(event.headers['X-Custom']).toBe('yes');
    expect(seen.env).toEqual({
      TABLE_NAME: outputs.TableName,
      QUEUE_URL: outputs.QueueUrl,
      QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:LocalRuntimeFixture-WorkQueue94013F35',
      BUS_NAME: expect.stringMatching(/^LocalRuntimeFixtureBus/),
      ROLE: 'api',
      AWS_LAMBDA_FUNCTION_NAME: seen.functionName,
    });
    expect(seen.remainingMillis).toBeGreaterThan(0);
    expect(seen.remainingMillis).toBeLessThanOrEqual(3000);

    const posted = await api('items', { method: 'POST', body: '{"name":"x"}' });
    expect(posted.status).toBe(200);
    expect(((await posted.json()) as { event: { body: string } }).event.body).toBe('{"name":"x"}');
  });

  it('answers unknown routes like API Gateway and enforces required API keys', async () => {
    expect((await api('nowhere')).status).toBe(403);
    expect(await (await api('items', { method: 'DELETE' })).json()).toEqual({
      message: 'Missing Authentication Token',
    });
    expect((await api('secured')).status).toBe(403);
    expect((await api('secured', { headers: { 'x-api-key': 'wrong' } })).status).toBe(403);
    const secured = await api('secured', { headers: { 'x-api-key': runtime.target.apiKey ?? '' } });
    expect(secured.status).toBe(200);
    // As API Gateway does for a key it checked: the key's id (what Ref of the ApiKey is) in the event.
    const { event } = (await secured.json()) as { event: { requestContext: { identity: unknown } } };
    expect(event.requestContext.identity).toMatchObject({
      apiKey: runtime.target.apiKey,
      apiKeyId: outputs.ApiKeyId,
    });
    const [api0] = Object.values(runtime.target.apis ?? {});
    expect(api0?.apiKeyIds).toEqual({ [outputs.ApiKeyId as string]: runtime.target.apiKey });
  });

  it('fires the schedule rule at start', async () => {
    const scheduled = await eventually(async () => {
      const { Items = [] } = await dynamodb.send(
        new QueryCommand({
          TableName: outputs.TableName,
          IndexName: 'ByGsiPk',
          KeyConditionExpression: 'gsiPk = :all AND begins_with(pk, :prefix)',
          ExpressionAttributeValues: { ':all': { S: 'all' }, ':prefix': { S: 'schedule#' } },
        }),
      );
      return Items[0];
    });
    expect(scheduled.rule?.S).toMatch(
      /^arn:aws:events:us-east-1:000000000000:rule\/LocalRuntimeFixture-EveryMinute/,
    );
  });

  it('runs the SQS event source with partial batch failures, visibility and redrive to the DLQ', async () => {
    await sqs.send(new SendMessageCommand({ QueueUrl: outputs.QueueUrl, MessageBody: 'ok-1' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: outputs.QueueUrl, MessageBody: 'fail-1' }));
    await eventually(() => itemExists('sqs#ok-1#1'));
    // The failed record comes back after the 3 s visibility timeout, fails again, then (receive
    // count above maxReceiveCount 2) the emulator moves it to the dead-letter queue.
    const deadLetter = await eventually(async () => {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: outputs.DeadLetterQueueUrl, WaitTimeSeconds: 1 }),
      );
      return Messages[0];
    }, 30_000);
    expect(deadLetter.Body).toBe('fail-1');
    // The successful record was deleted after its batch: never delivered a second time.
    expect(await itemExists('sqs#ok-1#2')).toBeUndefined();
  });

  it('invokes a function for a topic only where its resource policy lets SNS in for that topic', async () => {
    const sns = new SNSClient({
      region: runtime.target.region,
      credentials: runtime.target.credentials,
      endpoint: runtime.target.endpoints.sns,
    });
    try {
      await sns.send(new PublishCommand({ TopicArn: outputs.PermittedTopicArn, Message: 'let-in' }));
      await sns.send(new PublishCommand({ TopicArn: outputs.UnpermittedTopicArn, Message: 'kept-out' }));
      const notified = await eventually(() => itemExists('sns#let-in'));
      expect(notified.topicArn?.S).toBe(outputs.PermittedTopicArn);
      // Lambda refuses SNS for the other topic: the delivery fails to the subscription's DLQ.
      const refused = await eventually(async () => {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: outputs.RefusedNotificationsUrl,
            WaitTimeSeconds: 1,
            MessageAttributeNames: ['All'],
          }),
        );
        return Messages[0];
      });
      expect(JSON.parse(refused.Body ?? '{}')).toMatchObject({ Message: 'kept-out' });
      expect(refused.MessageAttributes?.ErrorCode?.StringValue).toBe('AccessDeniedException');
      expect(refused.MessageAttributes?.ErrorMessage?.StringValue).toContain(
        'sns.amazonaws.com is not authorized to perform: lambda:InvokeFunction',
      );
      expect(await itemExists('sns#kept-out')).toBeUndefined();
    } finally {
      sns.destroy();
    }
  });

  it('routes PutEvents from a function through a custom bus rule to an SQS target', async () => {
    expect((await api('events', { method: 'POST' })).status).toBe(200);
    const messages = await eventually(async () => {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: outputs.InboxQueueUrl,
          WaitTimeSeconds: 0,
          MaxNumberOfMessages: 10,
        }),
      );
      return Messages.length > 0 ? Messages : undefined;
    });
    const bodies = messages.map((message) => JSON.parse(message.Body ?? '{}') as Record<string, unknown>);
    // Only the entry matching the rule's pattern (detail-type Ping) reaches the target.
    expect(bodies).toEqual([
      expect.objectContaining({
        source: 'fixture.app',
        'detail-type': 'Ping',
        detail: { n: 1 },
        account: '000000000000',
      }),
    ]);
  });

  it('serves a function URL with payload format 2.0 and the inferred response', async () => {
    const response = await fetch(`${outputs.FunctionUrl}hello/there?a=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: 'c1=v1; c2=v2' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-fixture')).toBe('url');
    const { event } = (await response.json()) as { event: unknown };
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: '$default',
      rawPath: '/hello/there',
      rawQueryString: 'a=1',
      cookies: ['c1=v1', 'c2=v2'],
      queryStringParameters: { a: '1' },
      body: '{"a":1}',
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST', path: '/hello/there' }, accountId: 'anonymous' },
    });
  });

  it('turns a handler error into a 502 and keeps serving', async () => {
    expect((await fetch(`${outputs.FunctionUrl}crash`)).status).toBe(502);
    expect((await fetch(`${outputs.FunctionUrl}fine`)).status).toBe(201);
    expect(logLines.some((line) => line.includes('TypeError: crashed on purpose'))).toBe(true);
  });

  it('kills an invocation at the function timeout and replaces its sandbox', async () => {
    const before = (await (await fetch(`${outputs.FunctionUrl}first`)).json()) as { seen: Seen };
    const started = Date.now();
    const timedOut = await fetch(`${outputs.FunctionUrl}sleep`);
    const elapsed = Date.now() - started;
    expect(timedOut.status).toBe(502);
    expect(elapsed).toBeGreaterThanOrEqual(2900);
    expect(elapsed).toBeLessThan(15_000);
    expect(
      logLines.some((line) => line.includes('Sandbox.Timedout: Task timed out after 3.00 seconds')),
    ).toBe(true);
    // Requests so far were sequential, so one warm sandbox served them all, including the killed one.
    const after = (await (await fetch(`${outputs.FunctionUrl}again`)).json()) as { seen: Seen };
    expect(after.seen.sandboxId).not.toBe(before.seen.sandboxId);
    expect(after.seen.invocationsInThisSandbox).toBe(1);
  });

  it('caps concurrency at the reserved concurrency and isolates module state per sandbox', async () => {
    // The AWS_IAM URL: unsigned is refused; the account's root (the target's credentials) signs.
    expect((await fetch(`${outputs.SingleFunctionUrl}hold`)).status).toBe(403);
    const signer = new SignatureV4({
      service: 'lambda',
      region: runtime.target.region,
      credentials: runtime.target.credentials,
      sha256: Sha256,
    });
    const seenOf = async (response: Response) => ((await response.json()) as { seen: Seen }).seen;
    const hold = (url: string) => fetch(`${url}hold`).then(seenOf);
    const single = await Promise.all(
      [1, 2, 3].map(() =>
        sendSigned(signer, { method: 'GET', url: `${outputs.SingleFunctionUrl}hold` }).then(seenOf),
      ),
    );
    expect(new Set(single.map((seen) => seen.sandboxId)).size).toBe(1);
    const pooled = await Promise.all([1, 2, 3].map(() => hold(outputs.FunctionUrl ?? '')));
    expect(new Set(pooled.map((seen) => seen.sandboxId)).size).toBeGreaterThan(1);
    // Different functions never share a sandbox (module state).
    const singleIds = new Set(single.map((seen) => seen.sandboxId));
    expect(pooled.some((seen) => singleIds.has(seen.sandboxId))).toBe(false);
  });

  it('stops: every port released and the target file removed', async () => {
    const apiUrl = outputs.ApiUrl ?? '';
    const functionUrl = outputs.FunctionUrl ?? '';
    await runtime.stop();
    await expect(fetch(apiUrl)).rejects.toThrow();
    await expect(fetch(functionUrl)).rejects.toThrow();
    await expect(fetch(runtime.target.endpoints.dynamodb)).rejects.toThrow();
    await expect(fetch(runtime.target.endpoints.sqs)).rejects.toThrow();
    expect(existsSync(targetFile)).toBe(false);
    expect(recording.seen.stopped).toBe(true);
  });

  describe('npm start on this assembly', () => {
    const running = new Set<ChildProcess>();
    afterAll(() => {
      for (const child of running) child.kill('SIGTERM');
    });

    /** Runs bin/start-local.ts until it is ready (then stops it) or exits; resolves with its output. */
    function npmStart(
      args: string[],
      environment: Record<string, string>,
    ): Promise<{ output: string; code: number | null }> {
      const child = spawn(
        join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'),
        ['bin/start-local.ts', ...args],
        {
          cwd: PROJECT_ROOT,
          env: { ...process.env, ...environment },
        },
      );
      running.add(child);
      let output = '';
      return new Promise((resolve) => {
        const onOutput = (chunk: Buffer) => {
          output += chunk.toString('utf8');
          if (/ API \S+ \(x-api-key; .*: \S+\n/.test(output)) child.kill('SIGTERM');
        };
        child.stdout.on('data', onOutput);
        child.stderr.on('data', onOutput);
        child.on('exit', (code) => {
          running.delete(child);
          resolve({ output, code });
        });
      });
    }

    const freePort = () =>
      new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as { port: number };
          probe.close(() => resolve(port));
        });
      });

    const apiKeyOf = (output: string) => / API \S+ \(x-api-key; [^)]*\): (\S+)/.exec(output)?.[1];

    it('listens on PORT, keeps the generated API key of a data directory, and plugs in the transition log', async () => {
      const port = await freePort();
      const dataDir = join(workDir, 'npm-start-data');
      const common = [
        '--assembly',
        join(workDir, 'cdk.out'),
        '--target',
        join(workDir, 'npm-start-target.json'),
      ];
      const first = await npmStart([...common, '--data', dataDir], { PORT: String(port) });
      expect(first.output).toContain(`Local runtime ready at http://localhost:${port}/test/`);
      expect(first.output).toContain('transition log: no StateTableName output in this assembly');
      const key = apiKeyOf(first.output);
      expect(key).toMatch(/^[A-Za-z0-9_-]{40}$/);
      // The secrets an earlier start kept, widened (0644 in 0755 folders): the next start narrows them.
      const secretFiles = [
        join(dataDir, 'iam', 'identities.json'),
        join(dataDir, 'api-gateway', 'api-keys.json'),
      ];
      for (const file of secretFiles) {
        expect([file, statSync(file).mode & 0o777, statSync(dirname(file)).mode & 0o777]).toEqual([
          file,
          0o600,
          0o700,
        ]);
        chmodSync(file, 0o644);
        chmodSync(dirname(file), 0o755);
      }
      const again = await npmStart([...common, '--data', dataDir, '--port', '0'], { PORT: String(port) });
      for (const file of secretFiles) {
        expect([file, statSync(file).mode & 0o777, statSync(dirname(file)).mode & 0o777]).toEqual([
          file,
          0o600,
          0o700,
        ]);
      }
      expect(again.output).not.toContain(`http://localhost:${port}/`);
      expect(apiKeyOf(again.output)).toBe(key);
      const inMemory = await npmStart([...common, '--port', '0'], {});
      expect(apiKeyOf(inMemory.output)).toEqual(expect.any(String));
      expect(apiKeyOf(inMemory.output)).not.toBe(key);
    });

    it('refuses a bad PORT with a clear error', async () => {
      const { output, code } = await npmStart(['--assembly', join(workDir, 'cdk.out')], { PORT: 'abc' });
      expect(code).toBe(1);
      expect(output).toContain(
        "Local runtime failed to start: PORT must be a port number (0-65535), got 'abc'",
      );
    });
  });
});
