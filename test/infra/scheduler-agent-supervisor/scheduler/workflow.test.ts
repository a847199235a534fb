import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  DEFAULT_WORKFLOW_VERSION,
  workflowShape,
  workflowSteps,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { parseDefinition } from '../../../../lib/platform/guardrails';
import { loadConfig } from '../../../../lib/scheduler-agent-supervisor/config';
import {
  SchedulerWorkflow,
  type SchedulerWorkflowProps,
} from '../../../../lib/scheduler-agent-supervisor/scheduler/workflow';
import { PROBE_DATA_SETTINGS, probeStack, testApp } from '../../support/synth';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const { timings } = loadConfig('local');
const probe = () => probeStack();
const table = (stack: Stack, id: string, encryptionKey?: kms.IKey) =>
  new dynamodb.Table(stack, id, {
    partitionKey: { name: 'OrderID', type: dynamodb.AttributeType.STRING },
    ...(encryptionKey && { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey }),
  });
const queues = (stack: Stack, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, new sqs.Queue(stack, `${name}Queue`)]));
const workflowProps = (
  stack: Stack,
  agentQueues: Record<string, sqs.IQueue>,
  keys: { state?: kms.IKey; orders?: kms.IKey } = {},
): SchedulerWorkflowProps => ({
  version: DEFAULT_WORKFLOW_VERSION,
  stateTable: table(stack, 'State', keys.state),
  ordersTable: table(stack, 'Orders', keys.orders),
  agentQueues,
  timings,
});
const stepNames = V1_STEPS.map((s) => s.name);

describe('SchedulerWorkflow (the state machine construct)', () => {
  it('is a Standard, JSONPath, versioned state machine whose execution is bounded by the plan of steps and compensations', () => {
    const stack = probe();
    new SchedulerWorkflow(stack, 'Scheduler', workflowProps(stack, queues(stack, stepNames)));
    const machine = Object.values(
      Template.fromStack(stack).findResources('AWS::StepFunctions::StateMachine'),
    )[0];
    expect(machine?.Properties.StateMachineType).toBe('STANDARD');
    const definition = parseDefinition(machine?.Properties.DefinitionString);
    expect(definition.QueryLanguage ?? 'JSONPath').toBe('JSONPath');
    expect(definition.Comment).toBe(
      `Order scheduler (Scheduler Agent Supervisor), workflow version ${DEFAULT_WORKFLOW_VERSION}`,
    );
    // The default version is compact: the starter hands the claimed record over, so no LoadStateRecord.
    expect(definition.StartAt).toBe('CheckLock');
    const stepWindow = timings.stepTimeoutSeconds + timings.stepDeadlineSlackSeconds;
    // Every step and every compensation may take its window; 10 s per data task around them
    // (4 per step: MarkRunning, MarkCompleted, MarkCompensating, MarkCompensated; plus 5).
    expect(definition.TimeoutSeconds).toBe(2 * V1_STEPS.length * stepWindow + 10 * (4 * V1_STEPS.length + 5));
  });

  it('logs to its own log group with the given retention, deleted with the stack unless data is retained', () => {
    const stack = probe();
    new SchedulerWorkflow(stack, 'Scheduler', workflowProps(stack, queues(stack, stepNames)));
    const template = Template.fromStack(stack);
    template.hasResource('AWS::Logs::LogGroup', {
      Properties: { RetentionInDays: 7 },
      DeletionPolicy: 'Delete',
    });
    const retained = probeStack(testApp(), 'Probe', { ...PROBE_DATA_SETTINGS, retainData: true });
    new SchedulerWorkflow(retained, 'Scheduler', workflowProps(retained, queues(retained, stepNames)));
    Template.fromStack(retained).hasResource('AWS::Logs::LogGroup', { DeletionPolicy: 'Retain' });
  });

  it.each([
    [1, 'classic: decrypt the orders it loads'],
    [3, 'lean: no use of the orders key (the order is in the input)'],
  ])('may use customer-managed table keys: encrypt and decrypt the state; version %p is %s', (version) => {
    const stack = probe();
    const stateKey = new kms.Key(stack, 'StateKey');
    const ordersKey = new kms.Key(stack, 'OrdersKey');
    const workflow = new SchedulerWorkflow(stack, 'Scheduler', {
      ...workflowProps(stack, queues(stack, stepNames), { state: stateKey, orders: ordersKey }),
      version,
    });
    const roleId = stack.resolve(workflow.stateMachine.role.roleName) as { Ref: string };
    const statements = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleId.Ref))
      .flatMap(
        (policy) => policy.Properties.PolicyDocument.Statement as { Action: string[]; Resource: unknown }[],
      );
    const onKey = (key: kms.Key) =>
      statements
        .filter((s) => JSON.stringify(s.Resource) === JSON.stringify(stack.resolve(key.keyArn)))
        .flatMap((s) => s.Action);
    expect(onKey(stateKey)).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:Encrypt']));
    if (workflowShape(version) === 'classic') expect(onKey(ordersKey)).toContain('kms:Decrypt');
    else expect(onKey(ordersKey)).toEqual([]);
    expect(onKey(ordersKey)).not.toContain('kms:Encrypt');
  });

  describe('fails when', () => {
    it('a step has no agent queue', () => {
      const stack = probe();
      const props = workflowProps(stack, queues(stack, stepNames.slice(1)));
      expect(() => new SchedulerWorkflow(stack, 'Scheduler', props)).toThrow(
        `SchedulerWorkflow Probe/Scheduler: no agent queue for step '${V1_STEPS[0].name}'`,
      );
    });

    it('a queue belongs to no step', () => {
      const stack = probe();
      const props = workflowProps(stack, queues(stack, [...stepNames, 'Gift']));
      expect(() => new SchedulerWorkflow(stack, 'Scheduler', props)).toThrow(
        /agent queues for unknown steps: Gift/,
      );
    });

    it('a step name cannot be used in JSONPath', () => {
      const stack = probe();
      const steps = [
        {
          name: 'Bad.Name',
          service: 'x',
          operationPath: '/x',
          compensation: { name: 'UndoBadName', operationPath: '/x/undo' },
        },
      ];
      const props = { ...workflowProps(stack, queues(stack, ['Bad.Name'])), steps };
      expect(() => new SchedulerWorkflow(stack, 'Scheduler', props)).toThrow(
        /step name 'Bad.Name' must be letters and digits/,
      );
    });

    it('a step is listed twice', () => {
      const stack = probe();
      const step = {
        name: 'Twice',
        service: 'x',
        operationPath: '/x',
        compensation: { name: 'UndoTwice', operationPath: '/x/undo' },
      };
      const props = { ...workflowProps(stack, queues(stack, ['Twice'])), steps: [step, step] };
      expect(() => new SchedulerWorkflow(stack, 'Scheduler', props)).toThrow(/duplicate steps: Twice/);
    });

    it('the heartbeat is not below the step timeout (the callback task would never see one)', () => {
      const stack = probe();
      const props = {
        ...workflowProps(stack, queues(stack, stepNames)),
        timings: { ...timings, stepHeartbeatSeconds: timings.stepTimeoutSeconds },
      };
      expect(() => new SchedulerWorkflow(stack, 'Scheduler', props)).toThrow(
        /stepHeartbeatSeconds \(6\) must be below stepTimeoutSeconds \(6\)/,
      );
    });
  });
});
