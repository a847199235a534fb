/**
 * The retry budget's synth guardrail on the real stack: every profile passes with the layers it
 * configures, the products are the table in lambdas/scheduler-agent-supervisor/README.md, and raising one layer (in the template, or in a
 * profile) fails the synth with a message naming every factor.
 */
import { App } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { StateAttr, stepsOfVersions } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { remoteServicesDownstream } from '../../../lib/fakes/remote-services';
import { RetryBudgetGuardrail } from '../../../lib/platform/guardrails';
import { RetryPath } from '../../../lib/platform/retry-path';
import { AGENT_MAX_RECEIVE_COUNT } from '../../../lib/scheduler-agent-supervisor/agent';
import { loadConfig } from '../../../lib/scheduler-agent-supervisor/config';
import { SchedulerAgentSupervisorStack, STACK_NAME } from '../../../lib/scheduler-agent-supervisor/stack';
import { testOutdir } from '../../support/cdk-outdir';
import { DEMO_CONTEXT, ENDPOINTS_CONTEXT, synthesizeStack, testApp } from '../support/synth';

/** Each declared path of the stack: its operation, its product and its budget. */
function products(stack: SchedulerAgentSupervisorStack) {
  const guardrail = new RetryBudgetGuardrail(stack);
  return stack.node
    .findAll()
    .filter(RetryPath.isRetryPath)
    .map((path) => {
      const evaluation = guardrail.evaluate(path);
      if ('problems' in evaluation) throw new Error(evaluation.problems.join('; '));
      return {
        operation: path.operation,
        product: evaluation.product,
        budget: path.budget,
        factors: evaluation.factors.map((f) => `${f.layer}=${f.value}`),
      };
    });
}

describe('retry budget guardrail on the stack', () => {
  it.each([
    ['local', {}, 36, 36, 36],
    ['default', DEMO_CONTEXT, 60, 60, 36],
    ['default', ENDPOINTS_CONTEXT, 60, 60, 36],
  ] as const)(
    'profile %s (%o) synthesizes: steps %d calls of %d, compensations %d',
    (profile, context, stepProduct, budget, compensationProduct) => {
      const { stack, config } = synthesizeStack(profile, { context });
      expect(config.retryBudget.callsPerOperation).toBe(budget);
      const paths = products(stack);
      // Two paths per agent: its step and its step's compensation.
      expect(paths.map((p) => p.operation).sort()).toEqual(
        stepsOfVersions(config.workflow.live)
          .flatMap((step) => [`${step.service} ${step.name}`, `${step.service} ${step.compensation.name}`])
          .sort(),
      );
      for (const step of stepsOfVersions(config.workflow.live)) {
        const of = (operation: string) => paths.find((p) => p.operation === `${step.service} ${operation}`);
        expect(of(step.name)).toMatchObject({ product: stepProduct, budget });
        expect(of(step.compensation.name)).toMatchObject({ product: compensationProduct, budget });
      }
      const { timings } = config;
      expect(paths[0]?.factors).toEqual([
        `supervisor attempts=${timings.maxFailures}`,
        'Step Functions task executions=1',
        `SQS receives=${AGENT_MAX_RECEIVE_COUNT}`,
        `agent call attempts=${timings.agentMaxCallAttempts}`,
        'remote client requests per call=1',
      ]);
    },
  );

  it('fails the synth naming every factor when a layer is raised in the template (an agent queue receives 4 times)', () => {
    const app = testApp({ profile: 'local' });
    const stack = new SchedulerAgentSupervisorStack(app, STACK_NAME, {
      config: loadConfig('local'),
      downstream: { kind: 'fakes' },
      fakeDownstream: remoteServicesDownstream,
    });
    const charge = stack.agents.find((agent) => agent.step.name === 'ChargePayment');
    const queue = charge?.requestQueue.node.defaultChild as sqs.CfnQueue;
    const redrive = stack.resolve(queue.redrivePolicy) as Record<string, unknown>;
    queue.redrivePolicy = { ...redrive, maxReceiveCount: AGENT_MAX_RECEIVE_COUNT + 1 };
    expect(() => app.synth()).toThrow(
      /Retry path SchedulerAgentSupervisor\/ChargePaymentAgent\/StepRetryPath \(payment ChargePayment\): supervisor attempts 3 \(WORKFLOW_TIMINGS\.maxFailures of \S+\/ChargePaymentAgent\/Agent\/Function\/Resource\) x Step Functions task executions 1 \(1 \+ Retry MaxAttempts of ChargePayment\.CallAgent, ChargePayment\.Undo\.CallAgent\) x SQS receives 4 \(maxReceiveCount of \S+\/ChargePaymentAgent\/Requests\/Queue\/Resource\) x agent call attempts 4 \(MessageBody\.maxCallAttempts of ChargePayment\.CallAgent, ChargePayment\.Undo\.CallAgent\) x remote client requests per call 1 \(REMOTE_CLIENT_REQUESTS_PER_CALL, contracts\/retry-budget\.ts\) = 48 calls per operation, over the budget of 36 \(retryBudget\.callsPerOperation\)/,
    );
  });

  it('fails the synth when a profile raises a layer past its budget (maxFailures 4 in local)', () => {
    const local = loadConfig('local');
    const app = new App({ outdir: testOutdir(), context: { 'aws:cdk:bundling-stacks': [] } });
    new SchedulerAgentSupervisorStack(app, STACK_NAME, {
      config: { ...local, timings: { ...local.timings, maxFailures: 4 } },
      downstream: { kind: 'fakes' },
      fakeDownstream: remoteServicesDownstream,
    });
    expect(() => app.synth()).toThrow(
      /supervisor attempts 4 .* = 48 calls per operation, over the budget of 36/,
    );
  });

  it('lets each agent reserve calls in the state table and touch nothing but the key, RetryBudget, CallsMade and what progressStepRunning names, and record completions with what completeStep and completeOrder name', () => {
    const { stack, template } = synthesizeStack('local');
    const table = stack.resolve(stack.stateStore.table.tableArn);
    const reservation = {
      Action: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
      Effect: 'Allow',
      Resource: table,
      Condition: {
        'ForAllValues:StringEquals': {
          // Lean versions mark the step Running in the reservation's write (the lock and state it
          // is fenced on, the step, RunningStep, CompleteBy, ProgressAt): no other attribute.
          'dynamodb:Attributes': [
            StateAttr.OrderId,
            StateAttr.RetryBudget,
            StateAttr.CallsMade,
            StateAttr.LockedBy,
            StateAttr.ProcessState,
            StateAttr.Steps,
            StateAttr.RunningStep,
            StateAttr.CompleteBy,
            StateAttr.ProgressAt,
          ],
        },
        StringEqualsIfExists: {
          'dynamodb:Select': 'SPECIFIC_ATTRIBUTES',
          'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'],
        },
      },
    };
    // Compact versions (v5, the default): the agent records its step Completed, and the last one the
    // order Processed (out of the supervisor's index: DueShard), in a statement of its own.
    const completion = {
      ...reservation,
      Condition: {
        ...reservation.Condition,
        'ForAllValues:StringEquals': {
          'dynamodb:Attributes': [
            StateAttr.OrderId,
            StateAttr.LockedBy,
            StateAttr.ProcessState,
            StateAttr.Steps,
            StateAttr.CompensationLog,
            StateAttr.ProgressAt,
            StateAttr.CompleteBy,
            StateAttr.RunningStep,
            StateAttr.UpdatedAt,
            StateAttr.DueShard,
          ],
        },
      },
    };
    for (const agent of stack.agents) {
      const { role: agentRole } = agent.agent.function;
      if (!agentRole) throw new Error(`${agent.node.path} has no role`);
      const role = stack.resolve((agentRole.node.defaultChild as iam.CfnRole).ref);
      // Every statement of every policy on the role (ScopedRole splits them between the default
      // policy and UnscopableActions): the condition means something only if no other statement
      // reaches the state table, or the whole account (`*`) with a DynamoDB action.
      const statements = Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(JSON.stringify(role)))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]);
      const onStateTable = statements.filter((statement) => {
        const resources = [statement.Resource].flat();
        const actions = [statement.Action].flat().map(String);
        return (
          resources.some((resource) => JSON.stringify(resource) === JSON.stringify(table)) ||
          (resources.includes('*') &&
            actions.some((action) => action.startsWith('dynamodb:') && action !== 'dynamodb:ListStreams'))
        );
      });
      expect(onStateTable).toEqual([reservation, completion]);
      // And both sit in the role's default policy, where no IAM5 wildcard is acknowledged.
      const defaultPolicy = agentRole.node.tryFindChild('DefaultPolicy')?.node.defaultChild as iam.CfnPolicy;
      expect(stack.resolve(defaultPolicy.policyDocument).Statement).toContainEqual(reservation);
      expect(stack.resolve(defaultPolicy.policyDocument).Statement).toContainEqual(completion);
    }
  });
});
