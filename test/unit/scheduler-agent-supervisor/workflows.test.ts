import { parseWorkflowStateMachines } from '../../../lambdas/scheduler-agent-supervisor/adapters/runtime-config';
import {
  isLeanShape,
  KNOWN_WORKFLOW_VERSIONS,
  ORDER_STEPS,
  stepsOfVersions,
  WORKFLOW_VERSIONS,
  workflowShape,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  assertRecordVersionLive,
  recordVersionProblem,
  UnsupportedRecordVersion,
} from '../../../lambdas/scheduler-agent-supervisor/domain/state-record';

const names = (steps: readonly { name: string }[]) => steps.map((step) => step.name);

describe('workflow versions (contracts/workflows.ts)', () => {
  it('v1 runs the three original steps; v2 adds AwardLoyaltyPoints after them', () => {
    expect(names(workflowSteps(1))).toEqual(['ReserveInventory', 'ChargePayment', 'ScheduleShipping']);
    expect(names(workflowSteps(2))).toEqual([...names(workflowSteps(1)), 'AwardLoyaltyPoints']);
    expect(workflowSteps(2)[3]).toMatchObject({
      service: 'loyalty',
      operationPath: '/loyalty/awards',
      compensation: { name: 'RevokeLoyaltyPoints', operationPath: '/loyalty/revocations' },
    });
  });

  it('v3 and v4 are v1 and v2 in the lean shape, v5 and v6 in the compact one: a version is its steps and its shape', () => {
    expect(names(workflowSteps(3))).toEqual(names(workflowSteps(1)));
    expect(names(workflowSteps(4))).toEqual(names(workflowSteps(2)));
    expect(names(workflowSteps(5))).toEqual(names(workflowSteps(1)));
    expect(names(workflowSteps(6))).toEqual(names(workflowSteps(2)));
    expect(KNOWN_WORKFLOW_VERSIONS.map(workflowShape)).toEqual([
      'classic',
      'classic',
      'lean',
      'lean',
      'compact',
      'compact',
    ]);
    expect(() => workflowShape(7)).toThrow(/Unknown workflow version 7. Known versions: 1, 2, 3, 4, 5, 6/);
  });

  it('every shape but classic takes the order in its input and has the agent mark its step Running', () => {
    expect(KNOWN_WORKFLOW_VERSIONS.filter((version) => isLeanShape(workflowShape(version)))).toEqual([
      3, 4, 5, 6,
    ]);
  });

  it('every version runs step kinds of the catalogue, each once', () => {
    for (const version of KNOWN_WORKFLOW_VERSIONS) {
      const steps = names(workflowSteps(version));
      expect(new Set(steps).size).toBe(steps.length);
      for (const step of steps) expect(names(ORDER_STEPS)).toContain(step);
    }
    expect(KNOWN_WORKFLOW_VERSIONS).toEqual(Object.keys(WORKFLOW_VERSIONS).map(Number));
  });

  it.each([99, 0, 1.5, Number.NaN])('refuses unknown version %p, naming the known ones', (version) => {
    expect(() => workflowSteps(version)).toThrow(/Unknown workflow version .*Known versions: 1, 2/);
  });

  it('stepsOfVersions: the union of the versions steps, in catalogue order', () => {
    expect(names(stepsOfVersions([1]))).toEqual(names(workflowSteps(1)));
    expect(names(stepsOfVersions([2, 1]))).toEqual(names(workflowSteps(2)));
  });
});

describe('record versions this deployment may act on', () => {
  it.each([
    [{ schemaVersion: 3, workflowVersion: 1 }, [1], undefined],
    [{ schemaVersion: 2, workflowVersion: 2 }, [1, 2], undefined],
    [{ schemaVersion: 3, workflowVersion: 99 }, [1, 2], 'WorkflowVersion 99; live workflow versions: 1, 2'],
    [{ schemaVersion: 3, workflowVersion: 1 }, [2], 'WorkflowVersion 1; live workflow versions: 2'],
    [{ schemaVersion: 9, workflowVersion: 1 }, [1], 'SchemaVersion 9; supported: 2, 3'],
  ])('%p with live %p: %p', (versions, live, problem) => {
    expect(recordVersionProblem(versions, live)).toBe(problem);
  });

  it('assertRecordVersionLive throws the named error, carrying the order and the reason', () => {
    const record = { orderId: 'order-9', schemaVersion: 3, workflowVersion: 99 };
    expect(() => assertRecordVersionLive(record, [1])).toThrow(UnsupportedRecordVersion);
    try {
      assertRecordVersionLive(record, [1]);
    } catch (error) {
      expect(error).toMatchObject({ name: 'UnsupportedRecordVersion', orderId: 'order-9' });
    }
  });
});

describe('WORKFLOW_STATE_MACHINES', () => {
  it('reads version -> ARN, the keys being the live versions', () => {
    expect([...parseWorkflowStateMachines('{"1":"arn:a","2":"arn:b"}')]).toEqual([
      [1, 'arn:a'],
      [2, 'arn:b'],
    ]);
  });

  it.each([
    ['not json', 'is not JSON'],
    ['[]', 'must be a JSON object'],
    ['{}', 'names no workflow version'],
    ['{"99":"arn:x"}', "names workflow version '99'; known: 1, 2"],
    ['{"1":""}', 'version 1 has no state machine ARN'],
  ])('refuses %p at load', (text, message) => {
    expect(() => parseWorkflowStateMachines(text)).toThrow(message);
  });
});
