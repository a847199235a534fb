import { Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct, IValidation } from 'constructs';
import { VISIBILITY_TO_TIMEOUT_RATIO } from '../work-queue';
import { queueVisibilitySeconds } from './queue-visibility-seconds';
import { referencedResource, resourcesByLogicalId } from './references';

/** CloudFormation's default function timeout when the property is not set. */
const DEFAULT_FUNCTION_TIMEOUT_SECONDS = 3;

/**
 * Fails synth when an SQS queue consumed by a Lambda event source has a visibility timeout
 * under VISIBILITY_TO_TIMEOUT_RATIO x the function timeout: the message would reappear while
 * its first delivery is still being processed, and be processed twice.
 */
export class QueueVisibilityGuardrail implements IValidation {
  constructor(private readonly scope: IConstruct) {}

  validate(): string[] {
    const stack = Stack.of(this.scope);
    const byLogicalId = resourcesByLogicalId(this.scope);
    const errors: string[] = [];
    for (const node of this.scope.node.findAll()) {
      if (!(node instanceof lambda.CfnEventSourceMapping)) continue;
      const queue = referencedResource(stack.resolve(node.eventSourceArn), byLogicalId);
      const fn = referencedResource(stack.resolve(node.functionName), byLogicalId);
      if (!(queue instanceof sqs.CfnQueue) || !(fn instanceof lambda.CfnFunction)) continue;
      const visibility = queueVisibilitySeconds(queue);
      const timeout = seconds(stack.resolve(fn.timeout), DEFAULT_FUNCTION_TIMEOUT_SECONDS);
      if (visibility === undefined || timeout === undefined) continue;
      const required = timeout * VISIBILITY_TO_TIMEOUT_RATIO;
      if (visibility < required) {
        errors.push(
          `Queue ${queue.node.path} has a visibility timeout of ${visibility} s but is consumed by ${fn.node.path} (timeout ${timeout} s): it must be at least ${VISIBILITY_TO_TIMEOUT_RATIO} x ${timeout} = ${required} s`,
        );
      }
    }
    return errors;
  }
}

/** A literal number of seconds, the default when unset, undefined when only known at deploy time. */
function seconds(value: unknown, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  return typeof value === 'number' ? value : undefined;
}
