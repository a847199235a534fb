import { createServer, type Server } from 'node:http';
import type { FaultHooks, InterceptedRequest } from '../../../lib/local-runtime/fault-hooks';
import { closeServer, listen } from '../../../lib/local-runtime/protocol/http-server';
import { AwsApiFaultProxies } from '../../../lib/local-runtime/provisioners/aws-api-faults';
import {
  type ListenContext,
  ServiceEndpoints,
  type Stoppable,
} from '../../../lib/local-runtime/provisioning';

describe('fault hook: awsApi (functions reach local AWS services through an intercepting proxy)', () => {
  let service: Server;
  let serviceUrl: string;
  const reached: string[] = [];
  const stoppables: Stoppable[] = [];

  beforeAll(async () => {
    service = createServer((request, response) => {
      reached.push(`${request.method} ${request.headers['x-amz-target']}`);
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end('{"from":"service"}');
    });
    serviceUrl = await listen(service);
  });

  afterEach(async () => {
    for (const item of stoppables.splice(0)) await item.stop();
  });

  afterAll(() => closeServer(service));

  function contextWith(
    faults: FaultHooks,
    endpoints: ServiceEndpoints,
    problems: string[] = [],
  ): ListenContext {
    return {
      options: { assemblyDir: 'unused', faults },
      endpoints,
      problem: (message: string) => problems.push(message),
      stopWith: (item: Stoppable) => stoppables.push(item),
    } as unknown as ListenContext;
  }

  it('puts a proxy between functions and the service; the target description keeps the service', async () => {
    const endpoints = new ServiceEndpoints();
    endpoints.announce('DYNAMODB', serviceUrl);
    endpoints.announce('SQS', 'http://127.0.0.1:1');
    const seen: InterceptedRequest[] = [];
    await new AwsApiFaultProxies().listen(
      contextWith(
        {
          awsApi: {
            dynamodb: async (request, forward) => {
              seen.push(request);
              if (request.body.includes('"fail"')) {
                return { status: 500, headers: {}, body: '{"__type":"InternalServerError"}' };
              }
              return forward();
            },
          },
        },
        endpoints,
      ),
    );
    const forFunctions = endpoints.functionEnvironment('Caller');
    expect(forFunctions.AWS_ENDPOINT_URL_DYNAMODB).not.toBe(serviceUrl);
    expect(forFunctions.AWS_ENDPOINT_URL_SQS).toBe('http://127.0.0.1:1');
    expect(endpoints.endpointOf('DYNAMODB')).toBe(serviceUrl);

    const call = (body: string) =>
      fetch(forFunctions.AWS_ENDPOINT_URL_DYNAMODB as string, {
        method: 'POST',
        headers: { 'x-amz-target': 'DynamoDB_20120810.TransactWriteItems' },
        body,
      });
    const passed = await call('{"ok":true}');
    expect(passed.status).toBe(200);
    expect(await passed.json()).toEqual({ from: 'service' });
    const failed = await call('{"fail":true}');
    expect(failed.status).toBe(500);
    expect(reached).toEqual(['POST DynamoDB_20120810.TransactWriteItems']);
    expect(seen.map((request) => request.headers['x-amz-target'])).toEqual([
      'DynamoDB_20120810.TransactWriteItems',
      'DynamoDB_20120810.TransactWriteItems',
    ]);
  });

  it('refuses to intercept a service the runtime does not serve', async () => {
    const endpoints = new ServiceEndpoints();
    endpoints.announceFallback(serviceUrl);
    await expect(
      new AwsApiFaultProxies().listen(
        contextWith({ awsApi: { sns: (_request, forward) => forward() } }, endpoints),
      ),
    ).rejects.toThrow('faults.awsApi names sns, which is not a service the runtime serves');
  });

  it('does nothing without the hook', async () => {
    const endpoints = new ServiceEndpoints();
    endpoints.announce('DYNAMODB', serviceUrl);
    await new AwsApiFaultProxies().listen(contextWith({}, endpoints));
    expect(endpoints.functionEnvironment('Caller').AWS_ENDPOINT_URL_DYNAMODB).toBe(serviceUrl);
    expect(stoppables).toEqual([]);
  });
});
