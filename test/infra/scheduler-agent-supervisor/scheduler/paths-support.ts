/**
 * What the scheduler-paths tests share: a two-step workflow (Pack, Ship) built by schedulerPaths in
 * a parts stack and rendered to its states, and the path a first attempt takes through it.
 */
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { StepDefinition, WorkflowShape } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import type { AslState } from '../../../../lib/platform/guardrails';
import { loadConfig } from '../../../../lib/scheduler-agent-supervisor/config';
import { schedulerPaths } from '../../../../lib/scheduler-agent-supervisor/scheduler/paths';
import { partsStack, renderStates, stateOf } from '../../support/state-graph';

export const STEPS: StepDefinition[] = [
  {
    name: 'Pack',
    service: 'packing',
    operationPath: '/pack',
    compensation: { name: 'UndoPack', operationPath: '/pack/undo' },
  },
  {
    name: 'Ship',
    service: 'shipping',
    operationPath: '/ship',
    compensation: { name: 'UndoShip', operationPath: '/ship/undo' },
  },
];
const { timings } = loadConfig('local');

/** The states of `steps` in `shape` (classic when none is given, as schedulerPaths defaults). */
export function buildPaths(shape: WorkflowShape | undefined, steps: readonly StepDefinition[] = STEPS) {
  const { stack, stateTable } = partsStack();
  const agentQueues = Object.fromEntries(steps.map((s) => [s.name, new sqs.Queue(stack, `${s.name}Queue`)]));
  const start = schedulerPaths(stack, {
    ...(shape !== undefined && { shape }),
    steps,
    agentQueues,
    stateTable,
    ordersTable: new dynamodb.Table(stack, 'Orders', {
      partitionKey: { name: 'OrderID', type: dynamodb.AttributeType.STRING },
    }),
    timings,
  });
  const states = renderStates(stack, start);
  return { states, state: (name: string) => stateOf(states, name) };
}

/**
 * Follows the path of a first attempt from `from`: Next, CheckLock's first rule (the lock is held,
 * the first step not completed) and any other Choice's default (a step Check: not completed yet),
 * until a state without a successor.
 */
export function happyPath(state: (name: string) => AslState, from: string): string[] {
  const path = [from];
  for (let name = from; ; ) {
    const current = state(name);
    const next =
      current.Type !== 'Choice'
        ? current.Next
        : name === 'CheckLock'
          ? (current.Choices?.[0]?.Next as string | undefined)
          : current.Default;
    if (next === undefined) return path;
    path.push(next);
    name = next;
  }
}
