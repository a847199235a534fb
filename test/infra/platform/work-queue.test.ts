import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { WorkQueue } from '../../../lib/platform/work-queue';
import { probeStack } from '../support/synth';

const probe = () => probeStack();

describe('WorkQueue', () => {
  it('WorkQueue fails when maxReceiveCount is out of 1..10', () => {
    expect(
      () =>
        new WorkQueue(probe(), 'Work', {
          consumerTimeout: Duration.seconds(10),
          maxReceiveCount: 0,
        }),
    ).toThrow('WorkQueue Probe/Work: maxReceiveCount must be an integer from 1 to 10, got 0');
  });

  it('WorkQueue fails when a consumer asks for a batch Lambda cannot take without a batching window', () => {
    const stack = probe();
    const queue = new WorkQueue(stack, 'Work', {
      consumerTimeout: Duration.seconds(10),
      maxReceiveCount: 3,
    });
    const consumer = new lambda.Function(stack, 'Consumer', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    });
    expect(() => queue.consumeWith(consumer, 11)).toThrow(
      'WorkQueue Probe/Work: batchSize must be an integer from 1 to 10, got 11',
    );
  });

  it('WorkQueue fails when a consumer asks for a maximum concurrency Lambda does not take (2 to 1000)', () => {
    const stack = probe();
    const queue = new WorkQueue(stack, 'Work', {
      consumerTimeout: Duration.seconds(10),
      maxReceiveCount: 3,
    });
    const consumer = new lambda.Function(stack, 'Consumer', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    });
    for (const maxConcurrency of [1, 1001]) {
      expect(() => queue.consumeWith(consumer, 5, { maxConcurrency })).toThrow(
        `WorkQueue Probe/Work: maxConcurrency must be an integer from 2 to 1000, got ${maxConcurrency}`,
      );
    }
  });

  it('WorkQueue sets the visibility timeout to 6x its consumer timeout', () => {
    const stack = probe();
    const queue = new WorkQueue(stack, 'Work', {
      consumerTimeout: Duration.seconds(25),
      maxReceiveCount: 3,
    });
    const cfn = queue.queue.node.defaultChild as sqs.CfnQueue;
    expect(cfn.visibilityTimeout).toBe(150);
  });
});
