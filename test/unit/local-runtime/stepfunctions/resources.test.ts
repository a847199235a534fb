import { classifyResource } from '../../../../lib/local-runtime/stepfunctions/resources';

describe('classifyResource', () => {
  it.each([
    [
      'arn:aws:states:::dynamodb:getItem',
      { service: 'dynamodb', action: 'getItem', pattern: 'request-response' },
    ],
    [
      'arn:aws:states:::dynamodb:updateItem',
      { service: 'dynamodb', action: 'updateItem', pattern: 'request-response' },
    ],
    [
      'arn:aws-us-gov:states:::dynamodb:deleteItem',
      { service: 'dynamodb', action: 'deleteItem', pattern: 'request-response' },
    ],
    [
      'arn:aws:states:::sqs:sendMessage',
      { service: 'sqs', action: 'sendMessage', pattern: 'request-response' },
    ],
    [
      'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
      { service: 'sqs', action: 'sendMessage', pattern: 'wait-for-task-token' },
    ],
    [
      'arn:aws:states:::events:putEvents',
      { service: 'events', action: 'putEvents', pattern: 'request-response' },
    ],
    ['arn:aws:states:::lambda:invoke', { service: 'lambda', action: 'invoke', pattern: 'request-response' }],
    [
      'arn:aws:lambda:eu-west-1:123456789012:function:agent:live',
      {
        service: 'lambda-function',
        functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:agent:live',
      },
    ],
  ])('%s is supported', (resource, expected) => {
    expect(classifyResource(resource)).toMatchObject(expected);
  });

  it.each([
    ['arn:aws:states:::dynamodb:query', /dynamodb:query/],
    ['arn:aws:states:::dynamodb:getItem.waitForTaskToken', /do not support \.waitForTaskToken/],
    ['arn:aws:states:::states:startExecution.sync:2', /'\.sync:2' integration pattern/],
    ['arn:aws:states:::aws-sdk:s3:getObject', /not a service integration/],
    ['arn:aws:states:us-east-1:123456789012:activity:approve', /not a service integration/],
  ])('%s is unsupported with a reason', (resource, reason) => {
    const classified = classifyResource(resource);
    expect(classified.service).toBe('unsupported');
    expect(classified.service === 'unsupported' ? classified.reason : '').toMatch(reason);
  });
});
