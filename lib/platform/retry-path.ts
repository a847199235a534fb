import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/**
 * Where one multiplying layer of a call path keeps its number. The retry budget guardrail
 * (guardrails/retry-budget.ts) reads each one from the SYNTHESIZED template, never from the
 * constructs' props, so the product it checks is the one that deploys.
 */
export type RetryFactorSource =
  /** The queue's RedrivePolicy maxReceiveCount: a message is handled up to this many times. */
  | { readonly kind: 'max-receive-count'; readonly queue: sqs.IQueue }
  /**
   * Executions of the state machine Task states that send to this queue: 1 + the MaxAttempts of
   * each of their retriers (3 when a retrier does not say), the largest over those states; 1 when
   * no state machine in the stack sends to it.
   */
  | { readonly kind: 'task-executions'; readonly queue: sqs.IQueue }
  /**
   * A whole-number field of the message the state machine Task states send to this queue (their
   * Parameters.MessageBody): what the consumer is told, e.g. how many calls it may make. The
   * largest over those states.
   */
  | { readonly kind: 'task-message-field'; readonly queue: sqs.IQueue; readonly field: string }
  /** A whole-number field of a JSON environment variable of the function (e.g. WORKFLOW_TIMINGS). */
  | {
      readonly kind: 'environment-json';
      readonly function: lambda.IFunction;
      readonly variable: string;
      readonly field: string;
    }
  /** A number that lives in code, not in the template: `where` names its one home. */
  | { readonly kind: 'fixed'; readonly value: number; readonly where: string };

export interface RetryFactor {
  /** The layer, as a person names it (e.g. "supervisor attempts"). */
  readonly layer: string;
  readonly source: RetryFactorSource;
}

export interface RetryPathProps {
  /** The calls this path makes, for the message: e.g. "payment ChargePayment". */
  readonly operation: string;
  /** Calls one operation may make through every layer, at most. */
  readonly budget: number;
  /** Where the budget is configured (named in the message). */
  readonly budgetSource: string;
  /** Every layer that multiplies the calls, each read from where it lives. */
  readonly factors: readonly RetryFactor[];
}

/**
 * Declares a call path: the layers that multiply the calls one operation can make to a dependency,
 * and the budget their product must stay within. Declared by the construct that owns the path (an
 * agent and its queue); applyGuardrails checks every declaration in the stack at synth. It creates
 * no resource.
 */
export class RetryPath extends Construct {
  readonly operation: string;
  readonly budget: number;
  readonly budgetSource: string;
  readonly factors: readonly RetryFactor[];

  constructor(scope: Construct, id: string, props: RetryPathProps) {
    super(scope, id);
    if (!Number.isInteger(props.budget) || props.budget < 1) {
      throw new Error(`RetryPath ${this.node.path}: budget must be a positive integer, got ${props.budget}`);
    }
    if (props.factors.length === 0) {
      throw new Error(`RetryPath ${this.node.path}: declare at least one factor`);
    }
    for (const factor of props.factors) {
      if (
        factor.source.kind === 'fixed' &&
        (!Number.isInteger(factor.source.value) || factor.source.value < 1)
      ) {
        throw new Error(
          `RetryPath ${this.node.path}: fixed factor '${factor.layer}' must be a positive integer, got ${factor.source.value}`,
        );
      }
    }
    this.operation = props.operation;
    this.budget = props.budget;
    this.budgetSource = props.budgetSource;
    this.factors = props.factors;
  }

  static isRetryPath(value: unknown): value is RetryPath {
    return value instanceof RetryPath;
  }
}
