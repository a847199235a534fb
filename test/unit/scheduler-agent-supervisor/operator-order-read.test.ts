/**
 * The operator routes that read one order (inspect, workflow) answer through one handler shape
 * (adapters/operator-order-read.ts): each refusal and failure injected here, with a real
 * observability (tracing off, as outside Lambda) and API Gateway's event shape.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { operatorOrderReadHandler } from '../../../lambdas/scheduler-agent-supervisor/adapters/operator-order-read';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import { createObservability } from '../../../lambdas/shared/observability';

const savedEnv = { ...process.env };
beforeAll(() => {
  process.env[PowertoolsEnvKey.ServiceName] = 'operator-order-read-test';
  process.env[PowertoolsEnvKey.MetricsNamespace] = 'OperatorOrderReadTest';
});
afterAll(() => {
  process.env = { ...savedEnv };
});

const OPERATOR = 'arn:aws:iam::000000000000:user/operator';
const context = { awsRequestId: 'req-1' } as Context;

/** `userArn` '' is a request API Gateway passed with no caller identity. */
function event(orderId: string | undefined, userArn: string = OPERATOR): APIGatewayProxyEvent {
  return {
    body: null,
    headers: {},
    multiValueHeaders: {},
    httpMethod: 'GET',
    isBase64Encoded: false,
    path: `/operator/orders/${orderId ?? ''}`,
    pathParameters: orderId === undefined ? null : { orderId },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/operator/orders/{orderId}',
    requestContext: {
      requestId: 'req-1',
      identity: { userArn },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

function handlerReading(read: (orderId: string) => Promise<{ orderId: string } | undefined>) {
  const reads: string[] = [];
  const handler = operatorOrderReadHandler(
    createObservability(),
    async (orderId) => {
      reads.push(orderId);
      return read(orderId);
    },
    'Reading the order failed unexpectedly',
  );
  return { handler, reads };
}

describe('operatorOrderReadHandler', () => {
  it('answers 200 with what the read found', async () => {
    const { handler, reads } = handlerReading(async (orderId) => ({ orderId }));
    const answer = await handler(event('order-1'), context);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ orderId: 'order-1' });
    expect(reads).toEqual(['order-1']);
  });

  it('refuses a caller without an identity with 403, reading nothing', async () => {
    const { handler, reads } = handlerReading(async (orderId) => ({ orderId }));
    const answer = await handler(event('order-1', ''), context);
    expect(answer.statusCode).toBe(403);
    expect(JSON.parse(answer.body).message).toBe('No caller identity');
    expect(reads).toEqual([]);
  });

  it('refuses a malformed order id with 400 naming it, reading nothing', async () => {
    const { handler, reads } = handlerReading(async (orderId) => ({ orderId }));
    const answer = await handler(event('not a valid id!'), context);
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body).message).toMatch(/order ?id/i);
    expect(reads).toEqual([]);
  });

  it('answers 404 naming the order when the read finds none', async () => {
    const { handler } = handlerReading(async () => undefined);
    const answer = await handler(event('order-404'), context);
    expect(answer.statusCode).toBe(404);
    expect(JSON.parse(answer.body).message).toBe("Order 'order-404' not found");
  });

  it('answers 500 with a correlation id when the read throws, never the error itself', async () => {
    const { handler } = handlerReading(async () => {
      throw new Error('secret internals');
    });
    const answer = await handler(event('order-1'), context);
    expect(answer.statusCode).toBe(500);
    // The route's own words go to the log with the error; the caller gets a correlation id to quote.
    expect(JSON.parse(answer.body)).toEqual({ message: 'Internal error', correlationId: 'req-1' });
  });
});
