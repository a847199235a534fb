import { Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct, IValidation } from 'constructs';
import { referencedResource, resourcesByLogicalId } from './references';

/**
 * Fails synth when a queue could lose or wedge messages without anyone seeing them:
 * - a queue consumed by a Lambda event source has no redrive policy (a message its consumer keeps
 *   failing is received forever, and in a FIFO queue it blocks its message group);
 * - a FIFO queue has no dead-letter queue, unless it is itself a terminal dead-letter queue (the
 *   redrive target of another queue that nothing consumes);
 * - a FIFO queue's dead-letter queue is not FIFO.
 */
export class DeadLetterQueuesGuardrail implements IValidation {
  constructor(private readonly scope: IConstruct) {}

  validate(): string[] {
    const stack = Stack.of(this.scope);
    const byLogicalId = resourcesByLogicalId(this.scope);
    const queues = [...byLogicalId.values()].filter(
      (node): node is sqs.CfnQueue => node instanceof sqs.CfnQueue,
    );
    const consumed = new Set<sqs.CfnQueue>();
    for (const node of byLogicalId.values()) {
      if (!(node instanceof lambda.CfnEventSourceMapping)) continue;
      const source = referencedResource(stack.resolve(node.eventSourceArn), byLogicalId);
      if (source instanceof sqs.CfnQueue) consumed.add(source);
    }
    const deadLetterOf = new Map<sqs.CfnQueue, sqs.CfnQueue | 'elsewhere'>();
    for (const queue of queues) {
      const redrive = stack.resolve(queue.redrivePolicy) as { deadLetterTargetArn?: unknown } | undefined;
      if (redrive?.deadLetterTargetArn === undefined) continue;
      const target = referencedResource(redrive.deadLetterTargetArn, byLogicalId);
      deadLetterOf.set(queue, target instanceof sqs.CfnQueue ? target : 'elsewhere');
    }
    const deadLetterTargets = new Set([...deadLetterOf.values()].filter((t) => t !== 'elsewhere'));
    const isFifo = (queue: sqs.CfnQueue) => stack.resolve(queue.fifoQueue) === true;

    const errors: string[] = [];
    for (const queue of queues) {
      const deadLetter = deadLetterOf.get(queue);
      const path = queue.node.path;
      if (deadLetter === undefined) {
        if (consumed.has(queue)) {
          errors.push(
            `Queue ${path} is consumed by a Lambda event source but has no redrive policy: a message its consumer keeps failing would be received forever; give it a dead-letter queue`,
          );
        } else if (isFifo(queue) && !deadLetterTargets.has(queue)) {
          errors.push(
            `FIFO queue ${path} has no dead-letter queue: a message no one can process would block its message group; give it a FIFO dead-letter queue`,
          );
        }
      } else if (isFifo(queue) && deadLetter !== 'elsewhere' && !isFifo(deadLetter)) {
        errors.push(
          `FIFO queue ${path} has dead-letter queue ${deadLetter.node.path}, which is not FIFO: a FIFO queue's dead-letter queue must be FIFO`,
        );
      }
    }
    return errors;
  }
}
