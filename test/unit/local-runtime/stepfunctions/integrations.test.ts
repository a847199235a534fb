import { TaskFailure } from '../../../../lib/local-runtime/stepfunctions/errors';
import {
  ServiceIntegrations,
  serviceFailure,
} from '../../../../lib/local-runtime/stepfunctions/integrations';

describe('serviceFailure', () => {
  it('prefixes an AWS service error the way Step Functions does, keeping the status and request id', () => {
    const error = Object.assign(new Error('The conditional request failed'), {
      name: 'ConditionalCheckFailedException',
      $metadata: { httpStatusCode: 400, requestId: 'req-1' },
    });
    const failure = serviceFailure('DynamoDB', 'DynamoDb', error);
    expect(failure.name).toBe('DynamoDB.ConditionalCheckFailedException');
    expect(failure.message).toBe(
      'The conditional request failed (Service: DynamoDb, Status Code: 400, Request ID: req-1)',
    );
    expect(failure.isCatchable).toBe(true);
  });

  it('names an error without an HTTP answer an SdkClientException', () => {
    const failure = serviceFailure('SQS', 'AmazonSQS', new Error('connect ECONNREFUSED 127.0.0.1:1'));
    expect(failure.name).toBe('SQS.SdkClientException');
    expect(failure.message).toContain('ECONNREFUSED');
  });

  it('keeps a TaskFailure as it is', () => {
    const original = new TaskFailure('EventBridge.FailedEntry', 'x');
    expect(serviceFailure('EventBridge', 'EventBridge', original)).toBe(original);
  });
});

describe('ServiceIntegrations without a configured integration', () => {
  const integrations = new ServiceIntegrations({});

  it.each([
    [{ service: 'dynamodb', action: 'getItem', pattern: 'request-response' }, /no DynamoDB client/],
    [{ service: 'sqs', action: 'sendMessage', pattern: 'request-response' }, /no SQS client/],
    [{ service: 'events', action: 'putEvents', pattern: 'request-response' }, /no putEvents handler/],
    [{ service: 'lambda', action: 'invoke', pattern: 'request-response' }, /needs Parameters.FunctionName/],
  ] as const)(
    'fails %o with an uncatchable States.Runtime naming what is missing',
    async (integration, message) => {
      const failure = await integrations
        .call('S', integration, {})
        .catch((error: unknown) => error as TaskFailure);
      expect(failure).toBeInstanceOf(TaskFailure);
      expect((failure as TaskFailure).name).toBe('States.Runtime');
      expect((failure as TaskFailure).isCatchable).toBe(false);
      expect((failure as TaskFailure).message).toMatch(message);
    },
  );

  it('requires Parameters that resolve to an object', async () => {
    await expect(
      integrations.call('S', { service: 'sqs', action: 'sendMessage', pattern: 'request-response' }, 'text'),
    ).rejects.toThrow(/State 'S': the integration needs Parameters/);
  });
});
