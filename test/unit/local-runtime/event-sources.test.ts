/** Pure decisions of the runtime's front doors and event sources. */
import type { Message } from '@aws-sdk/client-sqs';
import {
  matchRoute,
  parseProxyResult,
  type RestApiMethod,
} from '../../../lib/local-runtime/apigateway/rest-apis';
import {
  type CloudWatchEvent,
  LocalEventBridge,
  parseRateExpression,
  type RuleTarget,
  targetInput,
} from '../../../lib/local-runtime/eventbridge/event-buses';
import { inferResponse } from '../../../lib/local-runtime/lambda/function-urls';
import type { InvocationResult } from '../../../lib/local-runtime/lambda/host';
import {
  keepFifoGroupOrder,
  messagesToDelete,
  toLambdaRecord,
} from '../../../lib/local-runtime/lambda/sqs-event-source';

const method = (resourcePath: string, httpMethod: string): RestApiMethod => ({
  logicalId: `${httpMethod}${resourcePath}`,
  resourcePath,
  resourceId: resourcePath,
  httpMethod,
  apiKeyRequired: false,
  integration: { type: 'lambda-proxy', functionArn: 'arn' },
});

describe('API Gateway routing', () => {
  const methods = [
    method('/orders', 'POST'),
    method('/orders/{orderId}', 'GET'),
    method('/orders/summary', 'GET'),
    method('/files/{path+}', 'ANY'),
  ];

  it('prefers literal segments over parameters and fills path parameters', () => {
    expect(matchRoute(methods, 'GET', '/orders/summary')).toMatchObject({
      method: { resourcePath: '/orders/summary' },
    });
    expect(matchRoute(methods, 'GET', '/orders/A%2F1')).toMatchObject({
      method: { resourcePath: '/orders/{orderId}' },
      pathParameters: { orderId: 'A/1' },
    });
    expect(matchRoute(methods, 'DELETE', '/files/a/b.txt')).toMatchObject({
      pathParameters: { path: 'a/b.txt' },
    });
  });

  it('tells an unknown resource from an unsupported method', () => {
    expect(matchRoute(methods, 'GET', '/nothing')).toBe('no-resource');
    expect(matchRoute(methods, 'GET', '/orders')).toBe('no-method');
    expect(matchRoute(methods, 'GET', '/orders/a/b')).toBe('no-resource');
  });

  it('accepts only well-formed proxy results', () => {
    expect(
      parseProxyResult({
        statusCode: 201,
        headers: { a: 'b' },
        multiValueHeaders: { c: ['1', '2'] },
        body: 'x',
      }),
    ).toEqual({
      statusCode: 201,
      headers: { a: 'b', c: ['1', '2'] },
      body: Buffer.from('x'),
    });
    expect(parseProxyResult({ statusCode: 200, body: 'aGk=', isBase64Encoded: true })?.body.toString()).toBe(
      'hi',
    );
    expect(parseProxyResult({ body: 'x' })).toBeUndefined();
    expect(parseProxyResult({ statusCode: 200, body: { not: 'a string' } })).toBeUndefined();
    expect(parseProxyResult('oops')).toBeUndefined();
  });
});

describe('function URL response inference', () => {
  it('uses a result with statusCode as the response, anything else as a 200 JSON body', () => {
    expect(inferResponse({ statusCode: 204, headers: { x: '1' }, cookies: ['a=b'] })).toEqual({
      statusCode: 204,
      headers: { x: '1', 'set-cookie': ['a=b'] },
      body: Buffer.from(''),
    });
    expect(inferResponse({ confirmationId: 'c' })).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"confirmationId":"c"}'),
    });
  });
});

describe('SQS event source decisions', () => {
  const messages: Message[] = [
    { MessageId: 'm1', ReceiptHandle: 'r1', Body: 'a' },
    { MessageId: 'm2', ReceiptHandle: 'r2', Body: 'b' },
  ];
  const ok = (payload: unknown): InvocationResult => ({ ok: true, payload, requestId: 'r' });

  it('deletes everything after success, nothing after a function error', () => {
    expect(messagesToDelete(messages, ok(null), true).delete).toEqual(messages);
    expect(
      messagesToDelete(messages, ok({ batchItemFailures: [{ itemIdentifier: 'm1' }] }), false).delete,
    ).toEqual(messages);
    expect(
      messagesToDelete(
        messages,
        { ok: false, error: { errorType: 'E', errorMessage: 'm' }, requestId: 'r' },
        true,
      ).delete,
    ).toEqual([]);
  });

  it('keeps the reported failures with ReportBatchItemFailures', () => {
    expect(
      messagesToDelete(messages, ok({ batchItemFailures: [{ itemIdentifier: 'm1' }] }), true).delete,
    ).toEqual([messages[1]]);
    expect(messagesToDelete(messages, ok({ batchItemFailures: [] }), true).delete).toEqual(messages);
  });

  it('fails the whole batch on an invalid partial batch response, as Lambda does', () => {
    const unknownId = messagesToDelete(
      messages,
      ok({ batchItemFailures: [{ itemIdentifier: 'zzz' }] }),
      true,
    );
    expect(unknownId).toEqual({
      delete: [],
      problem: expect.stringContaining('unknown itemIdentifier "zzz"'),
    });
    expect(messagesToDelete(messages, ok({ batchItemFailures: 'm1' }), true).delete).toEqual([]);
  });

  it('builds the Lambda SQS record shape', () => {
    expect(
      toLambdaRecord(
        {
          ...messages[0],
          Attributes: { ApproximateReceiveCount: '2' },
          MD5OfBody: 'md5',
          MessageAttributes: { k: { DataType: 'String', StringValue: 'v' } },
        },
        'arn:aws:sqs:us-east-1:000000000000:q',
        'us-east-1',
      ),
    ).toEqual({
      messageId: 'm1',
      receiptHandle: 'r1',
      body: 'a',
      attributes: { ApproximateReceiveCount: '2' },
      messageAttributes: {
        k: {
          stringValue: 'v',
          binaryValue: undefined,
          stringListValues: [],
          binaryListValues: [],
          dataType: 'String',
        },
      },
      md5OfBody: 'md5',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:q',
      awsRegion: 'us-east-1',
    });
  });
});

describe('EventBridge', () => {
  const event: CloudWatchEvent = {
    version: '0',
    id: 'e1',
    'detail-type': 'OrderFailed',
    source: 'order-processing',
    account: '000000000000',
    time: '2024-01-01T00:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail: { orderId: 'A-1', failureCount: 3 },
  };
  const target = (extra: Partial<RuleTarget>): RuleTarget => ({ id: 't', arn: 'arn:aws:sqs:x', ...extra });

  it('parses rate expressions and refuses others by name', () => {
    expect(parseRateExpression('rate(1 minute)')).toBe(60_000);
    expect(parseRateExpression('rate(2 hours)')).toBe(7_200_000);
    expect(() => parseRateExpression('cron(0 12 * * ? *)')).toThrow(
      /'cron\(0 12 \* \* \? \*\)' is not supported locally/,
    );
    expect(() => parseRateExpression('rate(0 minutes)')).toThrow(/not supported/);
  });

  it('gives targets the event, Input, InputPath or the InputTransformer result', () => {
    expect(JSON.parse(targetInput(target({}), event))).toEqual(event);
    expect(targetInput(target({ input: '{"fixed":true}' }), event)).toBe('{"fixed":true}');
    expect(targetInput(target({ inputPath: '$.detail' }), event)).toBe('{"orderId":"A-1","failureCount":3}');
    expect(
      targetInput(
        target({
          inputTransformer: {
            InputPathsMap: { id: '$.detail.orderId', n: '$.detail.failureCount' },
            InputTemplate: '"Order <id> failed <n> times"',
          },
        }),
        event,
      ),
    ).toBe('"Order A-1 failed 3 times"');
  });

  it('validates PutEvents entries one by one and routes matches to rule targets', async () => {
    const delivered: string[] = [];
    const bridge = new LocalEventBridge({
      region: 'us-east-1',
      accountId: '000000000000',
      deliver: async (ruleTarget, input) => {
        const routed = JSON.parse(input) as CloudWatchEvent;
        delivered.push(
          `${ruleTarget.id}:${routed['detail-type']}${routed.detail && 'at' in (routed.detail as object) ? ` ${routed.time}` : ''}`,
        );
      },
      onProblem: (message) => delivered.push(`problem:${message}`),
    });
    bridge.addBus('alerts');
    bridge.addRule({
      logicalId: 'R',
      name: 'r',
      arn: 'arn:r',
      busName: 'alerts',
      pattern: { 'detail-type': ['OrderFailed'] },
      targets: [target({ id: 'inbox' })],
    });
    const result = await bridge.putEvents([
      {
        EventBusName: 'arn:aws:events:us-east-1:000000000000:event-bus/alerts',
        Source: 's',
        DetailType: 'OrderFailed',
        Detail: '{}',
      },
      { EventBusName: 'alerts', Source: 's', DetailType: 'Other', Detail: '{}' },
      { EventBusName: 'missing', Source: 's', DetailType: 'OrderFailed', Detail: '{}' },
      { EventBusName: 'alerts', Source: 's', DetailType: 'OrderFailed', Detail: 'not json' },
      // The SDK sends Time as epoch seconds (the JSON protocol's timestamp); the CLI may send text.
      {
        EventBusName: 'alerts',
        Source: 's',
        DetailType: 'OrderFailed',
        Detail: '{"at":1}',
        Time: 1796104885.326,
      },
      {
        EventBusName: 'alerts',
        Source: 's',
        DetailType: 'OrderFailed',
        Detail: '{"at":2}',
        Time: '2026-12-01T06:01:25Z',
      },
      { EventBusName: 'alerts', Source: 's', DetailType: 'OrderFailed', Detail: '{}', Time: 'yesterday' },
    ]);
    await bridge.stop();
    expect(result.FailedEntryCount).toBe(3);
    expect(result.Entries).toEqual([
      { EventId: expect.any(String) },
      { EventId: expect.any(String) },
      { ErrorCode: 'ResourceNotFoundException', ErrorMessage: 'Event bus missing does not exist.' },
      { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameter Detail is not valid.' },
      { EventId: expect.any(String) },
      { EventId: expect.any(String) },
      { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameter Time is not valid.' },
    ]);
    expect(delivered).toEqual([
      'inbox:OrderFailed',
      'inbox:OrderFailed 2026-12-01T06:01:25Z',
      'inbox:OrderFailed 2026-12-01T06:01:25Z',
    ]);
    await expect(bridge.putEvents([])).rejects.toMatchObject({ errorType: 'ValidationException' });
  });
});

describe('SQS FIFO event source: partial batch failures keep each group in order', () => {
  const fifoMessage = (id: string, group: string): Message => ({
    MessageId: id,
    ReceiptHandle: `r-${id}`,
    Body: id,
    Attributes: { MessageGroupId: group },
  });
  const batch = [
    fifoMessage('a1', 'a'),
    fifoMessage('b1', 'b'),
    fifoMessage('a2', 'a'),
    fifoMessage('a3', 'a'),
    fifoMessage('b2', 'b'),
  ];
  const ok = (failed: string[]): InvocationResult => ({
    ok: true,
    payload: { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) },
    requestId: 'r',
  });
  const deleted = (failed: string[]) => keepFifoGroupOrder(batch, messagesToDelete(batch, ok(failed), true));

  it('deletes as reported when the handler reports every message after the first failure of a group', () => {
    const decision = deleted(['a2', 'a3']);
    expect(decision.delete.map((message) => message.MessageId)).toEqual(['a1', 'b1', 'b2']);
    expect(decision.problem).toBeUndefined();
  });

  it('keeps the rest of the group when the handler reports only the failed message, and says so', () => {
    const decision = deleted(['a2']);
    expect(decision.delete.map((message) => message.MessageId)).toEqual(['a1', 'b1', 'b2']);
    expect(decision.problem).toMatch(/a3 after a failed message of the same FIFO message group/);
  });

  it('leaves other groups alone and deletes nothing after a function error', () => {
    expect(deleted(['b1']).delete.map((message) => message.MessageId)).toEqual(['a1', 'a2', 'a3']);
    const failed = keepFifoGroupOrder(
      batch,
      messagesToDelete(
        batch,
        { ok: false, error: { errorType: 'E', errorMessage: 'm' }, requestId: 'r' },
        true,
      ),
    );
    expect(failed.delete).toEqual([]);
  });
});
