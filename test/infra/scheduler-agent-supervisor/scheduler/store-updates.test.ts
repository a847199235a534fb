import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import {
  appliesToStep,
  renderTransition,
  STATE_TRANSITIONS,
  TRANSITION_NAMES,
  type TransitionName,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  CONDITIONAL_CHECK_FAILED,
  DATA_TASK_TIMEOUT_SECONDS,
} from '../../../../lib/scheduler-agent-supervisor/scheduler/data-tasks';
import {
  StoreUpdates,
  storeUpdate,
} from '../../../../lib/scheduler-agent-supervisor/scheduler/store-updates';
import { partsStack, renderStates, stateOf } from '../../support/state-graph';

const STEP = 'Pack';
const STEP_DEF = {
  name: STEP,
  service: 'packing',
  operationPath: '/packing/parcels',
  compensation: { name: 'Unpack', operationPath: '/packing/unpacks' },
};
const SEQ = 2;

/** Each scheduler transition, the StoreUpdates method that builds it and the state it names. */
const BUILT: Record<string, { state: string; build: (updates: StoreUpdates) => tasks.DynamoUpdateItem }> = {
  markStepRunning: { state: `${STEP}.MarkRunning`, build: (u) => u.markStepRunning(STEP) },
  markStepCompleted: { state: `${STEP}.MarkCompleted`, build: (u) => u.markStepCompleted(STEP_DEF, SEQ) },
  markStepCompletedHandingOver: {
    state: `${STEP}.MarkCompleted`,
    build: (u) => u.markStepCompletedHandingOver(STEP_DEF, SEQ, 'Ship'),
  },
  markProcessed: { state: 'MarkProcessed', build: (u) => u.markProcessed() },
  beginCompensation: {
    state: `${STEP}.BeginCompensation`,
    build: (u) => u.beginCompensation(STEP, 'FirstUndo'),
  },
  beginCompensationUncertain: {
    state: `${STEP}.BeginCompensationUncertain`,
    build: (u) => u.beginCompensationUncertain(STEP_DEF),
  },
  markCompensating: {
    state: `${STEP}.Undo.MarkCompensating`,
    build: (u) => u.markCompensating(STEP_DEF),
  },
  markCompensatingUncertain: {
    state: `${STEP}.Undo.MarkUncertain`,
    build: (u) => u.markCompensatingUncertain(STEP_DEF, SEQ),
  },
  markStepCompensated: { state: `${STEP}.Undo.MarkCompensated`, build: (u) => u.markStepCompensated(STEP) },
  markCompensated: { state: 'MarkCompensated', build: (u) => u.markCompensated() },
  markCompensationFailed: {
    state: `${STEP}.Undo.MarkCompensationFailed`,
    build: (u) => u.markCompensationFailed(STEP_DEF),
  },
};

const lastErrorFrom = (source: string) => ({
  M: {
    Source: { S: source },
    Error: { 'S.$': '$.error.Error' },
    Cause: { 'S.$': 'States.JsonToString($.error)' },
    At: { 'S.$': '$$.State.EnteredTime' },
  },
});
const UNDOES = { 'S.$': `States.Format('{}:${STEP}', $.orderId)` };
/** alertIdFor in ASL: `<orderId>:CompensationFailed:<attempt>`. */
const ALERT_ID = "States.Format('{}:CompensationFailed:{}', $.orderId, $.attempt)";

/**
 * Expected ASL values by transition and placeholder: constants as literals, parameters bound to
 * execution paths (or to literals of the step), map values composed of both.
 */
const EXPECTED_VALUES: Record<string, Record<string, unknown>> = {
  markStepRunning: {
    ':runningStep': { S: STEP },
    ':completeBy': { 'N.$': `$.record.Item.Plan.M.${STEP}.N` },
  },
  markStepCompleted: {
    ':result': { M: { ConfirmationId: { 'S.$': `$.results.${STEP}.confirmationId` } } },
    ':compensationEntry': {
      M: {
        Seq: { N: String(SEQ) },
        Compensation: { S: 'Unpack' },
        Undoes: UNDOES,
        ConfirmationId: { 'S.$': `$.results.${STEP}.confirmationId` },
        Status: { S: 'Recorded' },
        RecordedAt: { 'S.$': '$$.State.EnteredTime' },
      },
    },
  },
  markStepCompletedHandingOver: {
    ':result': { M: { ConfirmationId: { 'S.$': `$.results.${STEP}.confirmationId` } } },
    ':compensationEntry': {
      M: {
        Seq: { N: String(SEQ) },
        Compensation: { S: 'Unpack' },
        Undoes: UNDOES,
        ConfirmationId: { 'S.$': `$.results.${STEP}.confirmationId` },
        Status: { S: 'Recorded' },
        RecordedAt: { 'S.$': '$$.State.EnteredTime' },
      },
    },
    ':completeBy': { 'N.$': '$.record.Item.Plan.M.Ship.N' },
  },
  markProcessed: {},
  beginCompensation: {
    ':lastError': lastErrorFrom(STEP),
    ':completeBy': { 'N.$': '$.record.Item.Plan.M.FirstUndo.N' },
  },
  // The step's own compensation runs first: its Undo.MarkUncertain follows.
  beginCompensationUncertain: {
    ':lastError': lastErrorFrom(STEP),
    ':completeBy': { 'N.$': '$.record.Item.Plan.M.Unpack.N' },
  },
  markCompensating: { ':completeBy': { 'N.$': '$.record.Item.Plan.M.Unpack.N' } },
  markCompensatingUncertain: {
    ':completeBy': { 'N.$': '$.record.Item.Plan.M.Unpack.N' },
    ':uncertainEntry': {
      M: {
        Seq: { N: String(SEQ) },
        Compensation: { S: 'Unpack' },
        Undoes: UNDOES,
        Uncertain: { BOOL: true },
        Status: { S: 'Compensating' },
        RecordedAt: { 'S.$': '$$.State.EnteredTime' },
        CompensatingAt: { 'S.$': '$$.State.EnteredTime' },
      },
    },
  },
  markStepCompensated: {
    ':result': {
      M: {
        ConfirmationId: { 'S.$': `$.compensations.${STEP}.confirmationId` },
        Undone: { 'BOOL.$': `$.compensations.${STEP}.undone` },
      },
    },
  },
  markCompensated: {},
  markCompensationFailed: {
    ':lastError': lastErrorFrom('Unpack'),
    ':attempt': { 'N.$': "States.Format('{}', $.attempt)" },
    ':alertEntry': {
      M: {
        AlertId: { 'S.$': ALERT_ID },
        Type: { S: 'CompensationFailed' },
        Reason: { S: 'CompensationRefused' },
        At: { 'S.$': '$$.State.EnteredTime' },
        Attempt: { 'N.$': "States.Format('{}', $.attempt)" },
        CorrelationId: { 'S.$': '$.correlationId' },
        LastError: lastErrorFrom('Unpack'),
        InstanceId: { 'S.$': '$.instanceId' },
        CompensationFailureCount: { 'N.$': '$.record.Item.CompensationFailureCount.N' },
        Step: { 'S.$': '$.failedStep' },
      },
    },
  },
};
const COMMON_VALUES = {
  ':instanceId': { 'S.$': '$.instanceId' },
  ':now': { 'S.$': '$$.State.EnteredTime' },
};

describe('store updates: the scheduler UpdateItem tasks, generated from STATE_TRANSITIONS', () => {
  const schedulerTransitions = TRANSITION_NAMES.filter((name) => STATE_TRANSITIONS[name].by === 'scheduler');

  it('StoreUpdates builds every scheduler transition of the table, and only those', () => {
    expect(Object.keys(BUILT).sort()).toEqual([...schedulerTransitions].sort());
  });

  describe.each(schedulerTransitions)('%s', (name) => {
    const built = BUILT[name] as (typeof BUILT)[string];
    const render = () => {
      const { stack, stateTable } = partsStack();
      const fencedOut = new sfn.Succeed(stack, 'FencedOut');
      const task = built.build(new StoreUpdates(stack, { stateTable, fencedOut }));
      return { stack, stateTable, state: stateOf(renderStates(stack, task), built.state) };
    };

    it('sends exactly the rendered expressions, names and values of its transition', () => {
      const { stack, stateTable, state } = render();
      const rendered = renderTransition(name, appliesToStep(STATE_TRANSITIONS[name]) ? { step: STEP } : {});
      const tableRef = stack.resolve(stateTable.tableName) as { Ref: string };
      expect(state.Resource).toMatch(/:states:::dynamodb:updateItem$/);
      expect(state.Parameters).toEqual({
        TableName: `{{Ref:${tableRef.Ref}}}`,
        Key: { OrderID: { 'S.$': '$.orderId' } },
        UpdateExpression: rendered.updateExpression,
        ConditionExpression: rendered.conditionExpression,
        ExpressionAttributeNames: {
          ...rendered.names,
          ...(rendered.nameParams !== undefined && { '#alertId.$': ALERT_ID }),
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(
            Object.entries(rendered.constants).map(([placeholder, value]) => [
              placeholder,
              typeof value === 'number' ? { N: String(value) } : { S: value },
            ]),
          ),
          ...Object.fromEntries(
            [...Object.keys(rendered.params), ...Object.keys(rendered.maps)].map((p) => [
              p,
              { ...COMMON_VALUES, ...EXPECTED_VALUES[name] }[p],
            ]),
          ),
        },
      });
    });

    it('names its transition in its comment', () => {
      expect(render().state.Comment).toContain(`(transition ${name})`);
    });

    it('ends in the fenced-out state when the fence fails, discards its output and has a small timeout', () => {
      const { state } = render();
      expect(state.Catch).toEqual([
        { ErrorEquals: [CONDITIONAL_CHECK_FAILED], ResultPath: '$.fencedOut', Next: 'FencedOut' },
      ]);
      expect(state.ResultPath).toBeNull();
      expect(state.TimeoutSeconds).toBe(DATA_TASK_TIMEOUT_SECONDS);
    });

    it('retries throttling and service errors at most twice, never the fence', () => {
      const { state } = render();
      expect(state.Retry).toHaveLength(1);
      expect(state.Retry?.[0]?.MaxAttempts).toBe(2);
      expect(state.Retry?.[0]?.ErrorEquals).toContain('DynamoDB.ThrottlingException');
      expect(state.Retry?.[0]?.ErrorEquals).not.toContain(CONDITIONAL_CHECK_FAILED);
      expect(state.Retry?.[0]?.ErrorEquals).not.toContain('States.ALL');
    });
  });

  describe('fails clearly', () => {
    const build = (transition: TransitionName, extra: Partial<Parameters<typeof storeUpdate>[2]> = {}) => {
      const { stack, stateTable } = partsStack();
      return () =>
        storeUpdate(stack, 'Probe', {
          stateTable,
          transition,
          fencedOut: new sfn.Succeed(stack, 'FencedOut'),
          ...extra,
        });
    };
    const completeBy = tasks.DynamoAttributeValue.numberFromString(sfn.JsonPath.stringAt('$.deadline'));

    it.each(TRANSITION_NAMES.filter((name) => STATE_TRANSITIONS[name].by !== 'scheduler'))(
      'fails when the transition is not the scheduler’s (%s)',
      (transition) => {
        expect(build(transition, { bindings: {} })).toThrow(
          new RegExp(
            `^Store update Parts/Probe: transition '${transition}' belongs to the (starter|agent|supervisor|operator), not the scheduler$`,
          ),
        );
      },
    );

    it('fails when a parameter has no binding', () => {
      expect(build('markStepRunning', { step: STEP })).toThrow(
        "State transition 'markStepRunning': missing parameter 'runningStep'; missing parameter 'completeBy'",
      );
    });

    it('fails when a parameter used only inside a map value has no binding', () => {
      expect(build('markCompensatingUncertain', { step: STEP, bindings: { completeBy } })).toThrow(
        "State transition 'markCompensatingUncertain': missing parameter 'seq'; missing parameter 'compensation'; missing parameter 'undoes'",
      );
    });

    it('fails when a binding has the wrong DynamoDB type', () => {
      const asText = tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt('$.deadline'));
      expect(build('markStepRunning', { step: STEP, bindings: { completeBy: asText } })).toThrow(
        "parameter 'completeBy' must be of type N, got S",
      );
    });

    it('fails when a binding names no parameter of the transition', () => {
      expect(build('markProcessed', { bindings: { completeBy } })).toThrow(
        "State transition 'markProcessed': unknown parameter 'completeBy'",
      );
    });

    it('fails when a step transition is given no step', () => {
      expect(build('markStepRunning', { bindings: { completeBy } })).toThrow(
        "State transition 'markStepRunning': it applies to a step; render it with the step name",
      );
    });
  });
});
