/**
 * The stack's data settings (lib/platform/data-settings.ts): given once on a stack, read by every
 * construct under it (removal policy and log retention), refused when the retention is not one
 * CloudWatch takes, and asked for by name when a stack has none.
 */
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Construct } from 'constructs';
import { DataSettings } from '../../../lib/platform/data-settings';
import { LambdaFunction } from '../../../lib/platform/lambda-function';
import { createSecureQueue } from '../../../lib/platform/work-queue';
import { probeStack, testApp } from '../support/synth';

const probeFunction = (stack: Stack) =>
  new LambdaFunction(stack, 'Fn', {
    handler: 'scheduler-agent-supervisor/handlers/get-order',
    metricsNamespace: 'Probe',
    description: 'probe',
    serviceName: 'probe',
  });

describe('DataSettings', () => {
  it('gives every construct of the stack its removal policy and log retention', () => {
    const kept = probeStack(testApp(), 'Kept', { retainData: true, logRetentionDays: 30 });
    probeFunction(kept);
    createSecureQueue(new Construct(kept, 'Nested'), 'Queue', {});
    const template = Template.fromStack(kept);
    template.hasResource('AWS::Logs::LogGroup', {
      DeletionPolicy: 'Retain',
      Properties: { RetentionInDays: 30 },
    });
    template.hasResource('AWS::SQS::Queue', { DeletionPolicy: 'Retain' });

    const dropped = probeStack(testApp(), 'Dropped', { retainData: false, logRetentionDays: 7 });
    probeFunction(dropped);
    Template.fromStack(dropped).hasResource('AWS::Logs::LogGroup', {
      DeletionPolicy: 'Delete',
      Properties: { RetentionInDays: 7 },
    });
    expect(DataSettings.of(dropped.node.findChild('Fn')).retainData).toBe(false);
  });

  it('refuses a retention CloudWatch does not take, naming the stack', () => {
    expect(() => probeStack(testApp(), 'Probe', { retainData: false, logRetentionDays: 8 })).toThrow(
      'DataSettings of Probe: logRetentionDays 8 is not a CloudWatch Logs retention period',
    );
  });

  it('names the stack that has none, and how to give it', () => {
    const bare = new Stack(testApp(), 'Bare');
    expect(() => probeFunction(bare)).toThrow(
      /^Bare\/Fn: stack Bare has no DataSettings; call DataSettings.forStack\(stack, /,
    );
  });
});
