import { Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { IConstruct, IValidation } from 'constructs';
import { type RetryFactorSource, RetryPath } from '../retry-path';
import { type AslState, allStates, parseDefinition } from './asl-definition';

/** ASL: a retrier without MaxAttempts retries 3 times. */
const ASL_DEFAULT_MAX_ATTEMPTS = 3;

/** One factor as read from the template. */
export interface ReadFactor {
  readonly layer: string;
  readonly value: number;
  /** Where the value was read. */
  readonly from: string;
}

/**
 * Fails synth when a declared call path (RetryPath) can make more calls for one operation than its
 * budget: the product of its layers, each read from the synthesized template (a queue's
 * maxReceiveCount, the Retry of the state machine tasks that feed it, a number in a function's
 * JSON environment) or, for a number that lives in code, from its declaration. The message names
 * every factor, its value and where it was read, and the budget, so the layer to lower is obvious.
 * App-agnostic: the wing says which resources form a path; this reads and multiplies.
 */
export class RetryBudgetGuardrail implements IValidation {
  constructor(private readonly scope: IConstruct) {}

  validate(): string[] {
    const errors: string[] = [];
    for (const node of this.scope.node.findAll()) {
      if (!RetryPath.isRetryPath(node)) continue;
      const evaluation = this.evaluate(node);
      const where = `Retry path ${node.node.path} (${node.operation})`;
      if ('problems' in evaluation) {
        errors.push(`${where}: cannot read ${evaluation.problems.join('; ')}`);
        continue;
      }
      const { factors, product } = evaluation;
      if (product > node.budget) {
        const named = factors.map((f) => `${f.layer} ${f.value} (${f.from})`).join(' x ');
        errors.push(
          `${where}: ${named} = ${product} calls per operation, over the budget of ${node.budget} (${node.budgetSource}); lower a layer or raise the budget`,
        );
      }
    }
    return errors;
  }

  /** Every factor of the path as the template holds it, and their product (or what could not be read). */
  evaluate(
    path: RetryPath,
  ):
    | { readonly factors: readonly ReadFactor[]; readonly product: number }
    | { readonly problems: readonly string[] } {
    const factors: ReadFactor[] = [];
    const problems: string[] = [];
    for (const factor of path.factors) {
      try {
        factors.push({ layer: factor.layer, ...this.read(factor.source) });
      } catch (error) {
        problems.push(`${factor.layer}: ${(error as Error).message}`);
      }
    }
    if (problems.length > 0) return { problems };
    return { factors, product: factors.reduce((total, factor) => total * factor.value, 1) };
  }

  private read(source: RetryFactorSource): { readonly value: number; readonly from: string } {
    const stack = Stack.of(this.scope);
    switch (source.kind) {
      case 'fixed':
        return { value: source.value, from: source.where };
      case 'max-receive-count': {
        const queue = cfnQueue(source.queue);
        const redrive = stack.resolve(queue.redrivePolicy) as { maxReceiveCount?: unknown } | undefined;
        const count = redrive?.maxReceiveCount;
        if (typeof count !== 'number') {
          throw new Error(
            `queue ${queue.node.path} has no numeric RedrivePolicy maxReceiveCount (unbounded receives)`,
          );
        }
        return { value: count, from: `maxReceiveCount of ${queue.node.path}` };
      }
      case 'task-executions':
        return this.taskExecutions(source.queue);
      case 'task-message-field':
        return this.taskMessageField(source.queue, source.field);
      case 'environment-json': {
        const fn = source.function.node.defaultChild;
        if (!(fn instanceof lambda.CfnFunction))
          throw new Error(`${source.function.node.path} is not a CfnFunction`);
        const environment = stack.resolve(fn.environment) as
          | { variables?: Record<string, unknown> }
          | undefined;
        const text = environment?.variables?.[source.variable];
        if (typeof text !== 'string') {
          throw new Error(`${fn.node.path} has no literal ${source.variable} environment variable`);
        }
        let value: unknown;
        try {
          value = (JSON.parse(text) as Record<string, unknown>)[source.field];
        } catch {
          throw new Error(`${source.variable} of ${fn.node.path} is not JSON`);
        }
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
          throw new Error(
            `${source.variable}.${source.field} of ${fn.node.path} is ${JSON.stringify(value)}, not a positive integer`,
          );
        }
        return { value, from: `${source.variable}.${source.field} of ${fn.node.path}` };
      }
    }
  }

  /** 1 + the retries of the Task states sending to the queue (the largest); 1 when none does. */
  private taskExecutions(queue: sqs.IQueue): { readonly value: number; readonly from: string } {
    const senders = this.sendersTo(queue);
    if (senders.length === 0) return { value: 1, from: `no state machine task sends to ${queue.node.path}` };
    const executions = senders.map(
      ({ state }) =>
        1 +
        (state.Retry ?? []).reduce(
          (sum, retrier) => sum + (retrier.MaxAttempts ?? ASL_DEFAULT_MAX_ATTEMPTS),
          0,
        ),
    );
    return {
      value: Math.max(...executions),
      // Each state machine of a live version has its own senders of the same names: name each once.
      from: `1 + Retry MaxAttempts of ${[...new Set(senders.map(({ name }) => name))].join(', ')}`,
    };
  }

  /** The field of the message the Task states send to the queue (the largest); required in each. */
  private taskMessageField(
    queue: sqs.IQueue,
    field: string,
  ): { readonly value: number; readonly from: string } {
    const senders = this.sendersTo(queue);
    if (senders.length === 0) throw new Error(`no state machine task sends to ${queue.node.path}`);
    const values = senders.map(({ name, state }) => {
      const body = state.Parameters?.MessageBody as Record<string, unknown> | undefined;
      const value = body?.[field];
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
        throw new Error(
          `the MessageBody of task '${name}' has ${field} ${JSON.stringify(value)}, not a positive integer`,
        );
      }
      return value;
    });
    return {
      value: Math.max(...values),
      from: `MessageBody.${field} of ${[...new Set(senders.map(({ name }) => name))].join(', ')}`,
    };
  }

  /** The Task states of every state machine in the stack whose QueueUrl is this queue. */
  private sendersTo(queue: sqs.IQueue): { readonly name: string; readonly state: AslState }[] {
    const stack = Stack.of(this.scope);
    const queueRef = `{{Ref:${stack.resolve(cfnQueue(queue).logicalId) as string}}}`;
    const senders: { name: string; state: AslState }[] = [];
    for (const node of stack.node.findAll()) {
      if (!(node instanceof sfn.CfnStateMachine) || node.definitionString === undefined) continue;
      for (const [name, state] of allStates(parseDefinition(stack.resolve(node.definitionString)))) {
        if (state.Type === 'Task' && state.Parameters?.QueueUrl === queueRef) senders.push({ name, state });
      }
    }
    return senders.sort((a, b) => a.name.localeCompare(b.name));
  }
}

function cfnQueue(queue: sqs.IQueue): sqs.CfnQueue {
  const cfn = queue.node.defaultChild;
  if (!(cfn instanceof sqs.CfnQueue)) throw new Error(`${queue.node.path} is not a CfnQueue of this app`);
  return cfn;
}
