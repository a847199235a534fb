import { type App, Duration, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { applyGuardrails } from '../../../lib/platform/guardrails';
import { RetryPath } from '../../../lib/platform/retry-path';
import { testApp } from '../support/synth';

function probeStack(): Stack {
  const stack = new Stack(testApp(), 'Probe');
  applyGuardrails(stack);
  return stack;
}

const synth = (stack: Stack) => () => (stack.node.root as App).synth();

/** A dead-letter queue, so the probes below trip only the rule they are about. */
const redrive = (stack: Stack, id = 'DeadLetters'): sqs.DeadLetterQueue => ({
  queue: new sqs.Queue(stack, id),
  maxReceiveCount: 3,
});

function consumer(stack: Stack, visibilitySeconds: number, timeoutSeconds: number): void {
  const queue = new sqs.Queue(stack, 'Requests', {
    visibilityTimeout: Duration.seconds(visibilitySeconds),
    deadLetterQueue: redrive(stack),
  });
  const fn = new lambda.Function(stack, 'Consumer', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => undefined;'),
    timeout: Duration.seconds(timeoutSeconds),
  });
  fn.addEventSource(new eventSources.SqsEventSource(queue));
}

function callbackMachine(stack: Stack, timeouts: { task?: number; heartbeat?: number }): void {
  const queue = new sqs.Queue(stack, 'AgentQueue');
  const call = tasks.SqsSendMessage.jsonPath(stack, 'Ask.Agent', {
    queue,
    integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    messageBody: sfn.TaskInput.fromObject({ token: sfn.JsonPath.taskToken }),
    taskTimeout:
      timeouts.task === undefined ? undefined : sfn.Timeout.duration(Duration.seconds(timeouts.task)),
    heartbeatTimeout:
      timeouts.heartbeat === undefined
        ? undefined
        : sfn.Timeout.duration(Duration.seconds(timeouts.heartbeat)),
  });
  new sfn.StateMachine(stack, 'Machine', { definitionBody: sfn.DefinitionBody.fromChainable(call) });
}

describe('guardrail: queues consumed by Lambda need visibility >= 6x the function timeout', () => {
  it('fails when the visibility timeout is under 6x the consumer timeout, naming queue and function', () => {
    const stack = probeStack();
    consumer(stack, 30, 30);
    expect(synth(stack)).toThrow(
      /Queue Probe\/Requests\/Resource has a visibility timeout of 30 s but is consumed by Probe\/Consumer\/Resource \(timeout 30 s\): it must be at least 6 x 30 = 180 s/,
    );
  });

  it('fails when the queue keeps the default visibility (30 s) and the function runs 10 s', () => {
    const stack = probeStack();
    const queue = new sqs.Queue(stack, 'Defaults', { deadLetterQueue: redrive(stack) });
    const fn = new lambda.Function(stack, 'Slow', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => undefined;'),
      timeout: Duration.seconds(10),
    });
    fn.addEventSource(new eventSources.SqsEventSource(queue));
    expect(synth(stack)).toThrow(/visibility timeout of 30 s .* at least 6 x 10 = 60 s/);
  });

  it('passes at exactly 6x', () => {
    const stack = probeStack();
    consumer(stack, 180, 30);
    expect(synth(stack)).not.toThrow();
  });
});

describe('guardrail: callback tasks need TimeoutSeconds and HeartbeatSeconds', () => {
  it('fails when a .waitForTaskToken task has neither, naming the state machine and the state', () => {
    const stack = probeStack();
    callbackMachine(stack, {});
    expect(synth(stack)).toThrow(
      /State machine Probe\/Machine\/Resource: callback task 'Ask.Agent' \(.waitForTaskToken\) has no TimeoutSeconds and no HeartbeatSeconds/,
    );
  });

  it('fails when only the heartbeat is missing', () => {
    const stack = probeStack();
    callbackMachine(stack, { task: 60 });
    expect(synth(stack)).toThrow(/callback task 'Ask.Agent' \(.waitForTaskToken\) has no HeartbeatSeconds;/);
  });

  it('fails when only the timeout is missing', () => {
    const stack = probeStack();
    callbackMachine(stack, { heartbeat: 10 });
    expect(synth(stack)).toThrow(/callback task 'Ask.Agent' \(.waitForTaskToken\) has no TimeoutSeconds;/);
  });

  it('passes when both are set', () => {
    const stack = probeStack();
    callbackMachine(stack, { task: 60, heartbeat: 10 });
    expect(synth(stack)).not.toThrow();
  });
});

describe('guardrail: dead-letter queues (consumed queues have redrive; FIFO queues have FIFO dead-letter queues)', () => {
  const fn = (stack: Stack) =>
    new lambda.Function(stack, 'Consumer', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => undefined;'),
    });

  it('fails when a queue consumed by Lambda has no redrive policy', () => {
    const stack = probeStack();
    fn(stack).addEventSource(new eventSources.SqsEventSource(new sqs.Queue(stack, 'Work')));
    expect(synth(stack)).toThrow(
      /Queue Probe\/Work\/Resource is consumed by a Lambda event source but has no redrive policy/,
    );
  });

  it('fails when a FIFO queue has no dead-letter queue, even if nothing consumes it yet', () => {
    const stack = probeStack();
    new sqs.Queue(stack, 'Orders', { fifo: true });
    expect(synth(stack)).toThrow(/FIFO queue Probe\/Orders\/Resource has no dead-letter queue/);
  });

  it("fails when a FIFO queue's dead-letter queue is not FIFO", () => {
    const stack = probeStack();
    const standard = new sqs.CfnQueue(stack, 'StandardDeadLetters');
    new sqs.CfnQueue(stack, 'Orders', {
      fifoQueue: true,
      redrivePolicy: { deadLetterTargetArn: standard.attrArn, maxReceiveCount: 3 },
    });
    expect(synth(stack)).toThrow(
      /FIFO queue Probe\/Orders has dead-letter queue Probe\/StandardDeadLetters, which is not FIFO/,
    );
  });

  it('fails when a consumed FIFO dead-letter queue has no redrive of its own', () => {
    const stack = probeStack();
    const deadLetters = new sqs.Queue(stack, 'DeadLetters', { fifo: true });
    const work = new sqs.Queue(stack, 'Work', {
      fifo: true,
      visibilityTimeout: Duration.seconds(18),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: 3 },
    });
    const consumer = fn(stack);
    consumer.addEventSource(new eventSources.SqsEventSource(work));
    consumer.addEventSource(new eventSources.SqsEventSource(deadLetters));
    expect(synth(stack)).toThrow(/Queue Probe\/DeadLetters\/Resource is consumed by a Lambda event source/);
  });

  it('passes for a consumed FIFO queue whose terminal FIFO dead-letter queue nothing consumes', () => {
    const stack = probeStack();
    const work = new sqs.Queue(stack, 'Work', {
      fifo: true,
      visibilityTimeout: Duration.seconds(18),
      deadLetterQueue: { queue: new sqs.Queue(stack, 'DeadLetters', { fifo: true }), maxReceiveCount: 3 },
    });
    fn(stack).addEventSource(new eventSources.SqsEventSource(work));
    expect(synth(stack)).not.toThrow();
  });
});

describe('guardrail: a declared retry path makes at most its budget of calls per operation', () => {
  /**
   * A call path: a state machine task sends to a queue (with `retry` attempts on it), a consumer
   * with JSON settings in its environment reads the queue, and the message tells it how many calls
   * it may make.
   */
  function callPath(
    stack: Stack,
    options: {
      readonly budget: number;
      readonly maxReceiveCount?: number;
      readonly retries?: readonly (number | undefined)[];
      readonly attempts?: number;
      readonly calls?: number;
    },
  ): void {
    const queue = new sqs.Queue(stack, 'Calls', {
      ...(options.maxReceiveCount !== undefined && {
        deadLetterQueue: {
          queue: new sqs.Queue(stack, 'CallsDlq'),
          maxReceiveCount: options.maxReceiveCount,
        },
      }),
    });
    const worker = new lambda.Function(stack, 'Worker', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => undefined;'),
      environment: { SETTINGS: JSON.stringify({ attempts: options.attempts ?? 2 }) },
    });
    const send = tasks.SqsSendMessage.jsonPath(stack, 'Send.Work', {
      queue,
      messageBody: sfn.TaskInput.fromObject({
        calls: options.calls ?? 4,
        order: sfn.JsonPath.stringAt('$.id'),
      }),
    });
    for (const maxAttempts of options.retries ?? []) {
      send.addRetry({ errors: ['States.Timeout'], ...(maxAttempts !== undefined && { maxAttempts }) });
    }
    new sfn.StateMachine(stack, 'Machine', { definitionBody: sfn.DefinitionBody.fromChainable(send) });
    new RetryPath(stack, 'Path', {
      operation: 'charge',
      budget: options.budget,
      budgetSource: 'test budget',
      factors: [
        {
          layer: 'attempts',
          source: { kind: 'environment-json', function: worker, variable: 'SETTINGS', field: 'attempts' },
        },
        { layer: 'task executions', source: { kind: 'task-executions', queue } },
        { layer: 'receives', source: { kind: 'max-receive-count', queue } },
        { layer: 'calls', source: { kind: 'task-message-field', queue, field: 'calls' } },
        { layer: 'client', source: { kind: 'fixed', value: 1, where: 'CLIENT_CONSTANT' } },
      ],
    });
  }

  it('passes when the product of the layers is within the budget', () => {
    const stack = probeStack();
    callPath(stack, { budget: 24, maxReceiveCount: 3 });
    expect(synth(stack)).not.toThrow();
  });

  it('fails naming every factor, its value and where it was read, the product and the budget', () => {
    const stack = probeStack();
    callPath(stack, { budget: 23, maxReceiveCount: 3 });
    expect(synth(stack)).toThrow(
      'Retry path Probe/Path (charge): attempts 2 (SETTINGS.attempts of Probe/Worker/Resource) x task executions 1 (1 + Retry MaxAttempts of Send.Work) x receives 3 (maxReceiveCount of Probe/Calls/Resource) x calls 4 (MessageBody.calls of Send.Work) x client 1 (CLIENT_CONSTANT) = 24 calls per operation, over the budget of 23 (test budget); lower a layer or raise the budget',
    );
  });

  it('counts every retrier of the sending task, 3 attempts for one that does not say', () => {
    const stack = probeStack();
    callPath(stack, { budget: 24 * 6, maxReceiveCount: 3, retries: [2, undefined] });
    expect(synth(stack)).not.toThrow();
    const tighter = probeStack();
    callPath(tighter, { budget: 24 * 6 - 1, maxReceiveCount: 3, retries: [2, undefined] });
    expect(synth(tighter)).toThrow(/task executions 6 \(1 \+ Retry MaxAttempts of Send\.Work\)/);
  });

  it('fails when a layer cannot be read: a queue without a redrive policy receives without bound', () => {
    const stack = probeStack();
    callPath(stack, { budget: 1000 });
    expect(synth(stack)).toThrow(
      'Retry path Probe/Path (charge): cannot read receives: queue Probe/Calls/Resource has no numeric RedrivePolicy maxReceiveCount (unbounded receives)',
    );
  });
});
