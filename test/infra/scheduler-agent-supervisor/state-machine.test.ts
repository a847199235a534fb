import {
  AgentError,
  AgentRequestSchema,
  DEFAULT_WORKFLOW_VERSION,
  renderTransition,
  STATE_TRANSITIONS,
  TRANSITION_NAMES,
  type TransitionName,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type AslDefinition, type AslState, allStates } from '../../../lib/platform/guardrails';
import {
  CONDITIONAL_CHECK_FAILED,
  DATA_TASK_TIMEOUT_SECONDS,
} from '../../../lib/scheduler-agent-supervisor/scheduler/data-tasks';
import { type SynthesizedStack, stateMachineDefinition, synthesizeStack } from '../support/synth';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const FENCE = '#lockedBy = :instanceId AND #processState = :processing';
/** The fence of a compensating execution: its lock on a CompensationInProgress record (and maybe more). */
const COMPENSATION_FENCE = /^#lockedBy = :instanceId AND #processState = :compensationInProgress( AND .+)?$/;
const REVERSED = [...V1_STEPS].reverse();

describe('scheduler state machine, state by state (local profile)', () => {
  let synth: SynthesizedStack;
  let definition: AslDefinition;
  let states: Map<string, AslState>;
  const state = (name: string): AslState => {
    const found = states.get(name);
    if (!found) throw new Error(`No state named '${name}'. States: ${[...states.keys()].join(', ')}`);
    return found;
  };
  const params = (name: string) => state(name).Parameters as Record<string, unknown>;

  beforeAll(() => {
    synth = synthesizeStack('local');
    // The classic shape (v1, still live by default); the lean one: scheduler/lean-paths.test.ts.
    definition = stateMachineDefinition(synth.template, 1);
    states = allStates(definition);
  });

  it('has exactly the stable, readable state names generated from V1_STEPS', () => {
    const perStep = V1_STEPS.flatMap((step) =>
      [
        'Check',
        'MarkRunning',
        'CallAgent',
        'MarkCompleted',
        'BeginCompensation',
        'Undo.Check',
        'Undo.MarkCompensating',
        'Undo.MarkUncertain',
        'Undo.CallAgent',
        'Undo.MarkCompensated',
        'Undo.PermanentFailure',
        'Undo.MarkCompensationFailed',
      ].map((suffix) => `${step.name}.${suffix}`),
    );
    const shared = [
      'LoadStateRecord',
      'LoadOrder',
      'CheckLock',
      'FencedOut',
      'MarkProcessed',
      'Processed',
      'MarkCompensated',
      'Compensated',
      'CompensationFailed',
      'AttemptAbandoned',
    ];
    expect([...states.keys()].sort()).toEqual([...shared, ...perStep].sort());
  });

  it('is JSONPath only (no JSONata, no variables) and carries the workflow version', () => {
    expect(definition.QueryLanguage ?? 'JSONPath').toBe('JSONPath');
    expect(definition.Comment).toContain('workflow version 1');
    for (const [name, s] of states) {
      for (const field of ['QueryLanguage', 'Arguments', 'Output', 'Assign']) {
        expect({ name, has: field in s }).toEqual({ name, has: false });
      }
    }
  });

  it('bounds the whole execution by the plan of steps and compensations (TimeoutSeconds)', () => {
    const { stepTimeoutSeconds, stepDeadlineSlackSeconds } = synth.config.timings;
    expect(definition.TimeoutSeconds).toBeGreaterThanOrEqual(
      2 * V1_STEPS.length * (stepTimeoutSeconds + stepDeadlineSlackSeconds),
    );
  });

  it('loads the state record then the order (both consistent reads), then checks the lock', () => {
    expect(definition.StartAt).toBe('LoadStateRecord');
    expect(state('LoadStateRecord')).toMatchObject({
      Type: 'Task',
      Resource: expect.stringMatching(/:states:::dynamodb:getItem$/),
      Parameters: { Key: { OrderID: { 'S.$': '$.orderId' } }, ConsistentRead: true },
      ResultPath: '$.record',
      Next: 'LoadOrder',
    });
    expect(state('LoadOrder')).toMatchObject({
      Resource: expect.stringMatching(/:states:::dynamodb:getItem$/),
      Parameters: { Key: { OrderID: { 'S.$': '$.orderId' } }, ConsistentRead: true },
      ResultPath: '$.order',
      Next: 'CheckLock',
    });
    expect(params('LoadStateRecord').TableName).not.toEqual(params('LoadOrder').TableName);
  });

  it('CheckLock runs only when LockedBy is this instance: the steps when Processing, the compensations when CompensationInProgress, else FencedOut', () => {
    const checkLock = state('CheckLock');
    expect(checkLock.Type).toBe('Choice');
    expect(checkLock.Default).toBe('FencedOut');
    expect(checkLock.Choices).toHaveLength(2);
    const rules = checkLock.Choices as { And: Record<string, unknown>[]; Next: string }[];
    expect(rules.map((rule) => rule.Next)).toEqual([
      `${V1_STEPS[0].name}.Check`,
      `${REVERSED[0]?.name}.Undo.Check`,
    ]);
    for (const [rule, processState] of [
      [rules[0], 'Processing'],
      [rules[1], 'CompensationInProgress'],
    ] as const) {
      expect(rule?.And).toEqual(
        expect.arrayContaining([
          { Variable: '$.record.Item.LockedBy.S', StringEqualsPath: '$.instanceId' },
          { Variable: '$.record.Item.ProcessState.S', StringEquals: processState },
          { Variable: '$.record.Item.LockedBy.S', IsPresent: true },
        ]),
      );
    }
    expect(state('FencedOut').Type).toBe('Succeed');
  });

  it('every store update is fenced on LockedBy and ProcessState, and a failed fence ends in FencedOut', () => {
    const updates = [...states].filter(([, s]) => s.Resource?.endsWith(':states:::dynamodb:updateItem'));
    const steps = V1_STEPS.flatMap((step) => [
      `${step.name}.MarkRunning`,
      `${step.name}.MarkCompleted`,
      `${step.name}.BeginCompensation`,
    ]);
    const undos = V1_STEPS.flatMap((step) =>
      ['MarkCompensating', 'MarkUncertain', 'MarkCompensated', 'MarkCompensationFailed'].map(
        (suffix) => `${step.name}.Undo.${suffix}`,
      ),
    );
    expect(updates.map(([name]) => name).sort()).toEqual(
      [...steps, 'MarkProcessed', ...undos, 'MarkCompensated'].sort(),
    );
    for (const [name, update] of updates) {
      const p = update.Parameters as Record<string, Record<string, unknown>>;
      const compensating = name.includes('.Undo.') || name === 'MarkCompensated';
      expect({ name, condition: p.ConditionExpression }).toEqual({
        name,
        condition: compensating ? expect.stringMatching(COMPENSATION_FENCE) : FENCE,
      });
      expect(p.ExpressionAttributeNames).toMatchObject({
        '#lockedBy': 'LockedBy',
        '#processState': 'ProcessState',
      });
      expect(p.ExpressionAttributeValues).toMatchObject({
        ':instanceId': { 'S.$': '$.instanceId' },
        ...(compensating
          ? { ':compensationInProgress': { S: 'CompensationInProgress' } }
          : { ':processing': { S: 'Processing' } }),
      });
      expect(p.Key).toEqual({ OrderID: { 'S.$': '$.orderId' } });
      expect(update.Catch).toEqual([
        { ErrorEquals: [CONDITIONAL_CHECK_FAILED], ResultPath: '$.fencedOut', Next: 'FencedOut' },
      ]);
      expect(update.ResultPath).toBeNull();
    }
  });

  it('every store update is a scheduler transition of STATE_TRANSITIONS, rendered as is, and every one is used', () => {
    const used = new Set<string>();
    const updates = [...states].filter(([, s]) => s.Resource?.endsWith(':states:::dynamodb:updateItem'));
    for (const [name, update] of updates) {
      const transition = /\(transition (\w+)\)\.$/.exec(String(update.Comment))?.[1] as TransitionName;
      expect({ name, by: STATE_TRANSITIONS[transition]?.by }).toEqual({ name, by: 'scheduler' });
      const step = V1_STEPS.find((candidate) => name.startsWith(`${candidate.name}.`))?.name;
      const rendered = renderTransition(transition, step === undefined ? {} : { step });
      const p = update.Parameters as Record<string, unknown>;
      expect({ name, update: p.UpdateExpression, condition: p.ConditionExpression }).toEqual({
        name,
        update: rendered.updateExpression,
        condition: rendered.conditionExpression,
      });
      // A name bound to a parameter (THIS_ALERT) is an execution value: `#alertId.$`.
      expect(p.ExpressionAttributeNames).toEqual({
        ...rendered.names,
        ...Object.fromEntries(
          Object.keys(rendered.nameParams ?? {}).map((name) => [`${name}.$`, expect.any(String)]),
        ),
      });
      expect(Object.keys(p.ExpressionAttributeValues as object).sort()).toEqual(
        [
          ...Object.keys(rendered.constants),
          ...Object.keys(rendered.params),
          ...Object.keys(rendered.maps),
          ...(rendered.emptyMaps ?? []),
        ].sort(),
      );
      used.add(transition);
    }
    // markStepCompletedHandingOver is the lean shape's (v3), beginCompensationUncertain the compact
    // shape's (v5): both live beside v1 in the same template.
    for (const [version, own] of [
      [3, 'markStepCompletedHandingOver'],
      [5, 'beginCompensationUncertain'],
    ] as const) {
      for (const update of allStates(stateMachineDefinition(synth.template, version)).values()) {
        const transition = /\(transition (\w+)\)\.$/.exec(String(update.Comment))?.[1];
        if (transition !== undefined && !used.has(transition)) {
          expect({ version, transition }).toEqual({ version, transition: own });
          used.add(transition);
        }
      }
    }
    expect([...used].sort()).toEqual(
      TRANSITION_NAMES.filter((name) => STATE_TRANSITIONS[name].by === 'scheduler').sort(),
    );
  });

  it('never writes the state store outside the fenced updates (no putItem/deleteItem, no other table writes)', () => {
    const resources = [...states.values()].map((s) => s.Resource).filter((r): r is string => r !== undefined);
    const verbs = resources.map((r) => r.slice(r.indexOf(':::') + 3));
    expect([...new Set(verbs)].sort()).toEqual(
      ['dynamodb:getItem', 'dynamodb:updateItem', 'sqs:sendMessage.waitForTaskToken'].sort(),
    );
  });

  it('every Task state has an explicit TimeoutSeconds (data tasks: small; callbacks: the step timeout)', () => {
    for (const [name, s] of states) {
      if (s.Type !== 'Task') continue;
      const expected = s.Resource?.endsWith('.waitForTaskToken')
        ? synth.config.timings.stepTimeoutSeconds
        : DATA_TASK_TIMEOUT_SECONDS;
      expect({ name, timeout: s.TimeoutSeconds }).toEqual({ name, timeout: expected });
    }
  });

  it('retries data tasks a bounded number of times and never retries the fence', () => {
    for (const [name, s] of states) {
      if (s.Type !== 'Task' || s.Resource?.endsWith('.waitForTaskToken')) continue;
      expect({ name, retries: s.Retry?.length }).toEqual({ name, retries: 1 });
      for (const retrier of s.Retry ?? []) {
        expect(retrier.MaxAttempts).toBeLessThanOrEqual(2);
        expect(retrier.ErrorEquals).not.toContain(CONDITIONAL_CHECK_FAILED);
        expect(retrier.ErrorEquals).not.toContain('States.ALL');
      }
    }
  });

  describe.each(V1_STEPS.map((step, index) => [step.name, index] as const))('step %s', (name, index) => {
    const following = (): string => {
      const next = V1_STEPS[index + 1];
      return next ? `${next.name}.Check` : 'MarkProcessed';
    };

    it('is skipped when an earlier attempt completed it', () => {
      const check = state(`${name}.Check`);
      expect(check.Type).toBe('Choice');
      expect(check.Default).toBe(`${name}.MarkRunning`);
      expect(check.Choices).toEqual([
        {
          And: [
            { Variable: `$.record.Item.Steps.M.${name}.M.Status.S`, IsPresent: true },
            { Variable: `$.record.Item.Steps.M.${name}.M.Status.S`, StringEquals: 'Completed' },
          ],
          Next: following(),
        },
      ]);
    });

    it('MarkRunning sets Running, StartedAt and CompleteBy = Plan of the step, then calls the agent', () => {
      const markRunning = state(`${name}.MarkRunning`);
      const p = markRunning.Parameters as Record<string, Record<string, unknown>>;
      expect(p.UpdateExpression).toBe(
        'SET #steps.#step.#status = :running, #steps.#step.#startedAt = :now, #runningStep = :runningStep, #completeBy = :completeBy, #updatedAt = :now',
      );
      expect(p.ExpressionAttributeNames).toMatchObject({ '#step': name, '#completeBy': 'CompleteBy' });
      expect(p.ExpressionAttributeValues).toMatchObject({
        ':running': { S: 'Running' },
        ':runningStep': { S: name },
        ':completeBy': { 'N.$': `$.record.Item.Plan.M.${name}.N` },
      });
      expect(markRunning.Next).toBe(`${name}.CallAgent`);
    });

    it('CallAgent waits for the task token on the step queue with the step timeout and heartbeat', () => {
      const call = state(`${name}.CallAgent`);
      const queue = synth.stack.agents[index]?.requests.queue;
      const queueRef = synth.stack.resolve(queue?.queueUrl) as { Ref: string };
      expect(call).toMatchObject({
        Resource: expect.stringMatching(/:states:::sqs:sendMessage\.waitForTaskToken$/),
        TimeoutSeconds: synth.config.timings.stepTimeoutSeconds,
        HeartbeatSeconds: synth.config.timings.stepHeartbeatSeconds,
        ResultPath: `$.results.${name}`,
        Next: `${name}.MarkCompleted`,
      });
      expect((call.Parameters as { QueueUrl: string }).QueueUrl).toBe(`{{Ref:${queueRef.Ref}}}`);
    });

    it('CallAgent sends exactly the AgentRequest contract, keyed on a stable idempotency key', () => {
      const body = (state(`${name}.CallAgent`).Parameters as { MessageBody: Record<string, unknown> })
        .MessageBody;
      const fields = Object.keys(body).map((key) => key.replace(/\.\$$/, ''));
      expect(fields.sort()).toEqual(
        Object.keys(AgentRequestSchema.shape)
          // `undoes` is sent by compensation calls only, `markRunning` by lean and compact versions
          // only, `recordCompletion` by compact ones only (v1 is classic).
          .filter((field) => field !== 'undoes' && field !== 'markRunning' && field !== 'recordCompletion')
          .sort(),
      );
      const { timings } = synth.config;
      expect(body).toMatchObject({
        'taskToken.$': '$$.Task.Token',
        step: name,
        action: 'perform',
        operation: name,
        'instanceId.$': '$.instanceId',
        'attempt.$': '$.attempt',
        'idempotencyKey.$': `States.Format('{}:${name}', $.orderId)`,
        'deadlineEpochMillis.$': `States.StringToJson($.record.Item.Plan.M.${name}.N)`,
        'taskEnteredAt.$': '$$.State.EnteredTime',
        taskTimeoutSeconds: timings.stepTimeoutSeconds,
        heartbeatSeconds: timings.stepHeartbeatSeconds,
        maxCallAttempts: timings.agentMaxCallAttempts,
        'correlationId.$': '$.correlationId',
      });
      expect(JSON.stringify(body['idempotencyKey.$'])).not.toContain('Token');
      const order = body.order as Record<string, unknown>;
      expect(
        Object.keys(order)
          .map((key) => key.replace(/\.\$$/, ''))
          .sort(),
      ).toEqual(Object.keys(AgentRequestSchema.shape.order.shape).sort());
      expect(order['items.$']).toBe('States.StringToJson($.order.Item.Items.S)');
    });

    it('a permanent agent failure begins the compensation (the same execution), anything else abandons the attempt', () => {
      expect(state(`${name}.CallAgent`).Catch).toEqual([
        {
          ErrorEquals: [AgentError.Permanent, AgentError.RetryBudgetExhausted],
          ResultPath: '$.error',
          Next: `${name}.BeginCompensation`,
        },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.abandoned', Next: 'AttemptAbandoned' },
      ]);
      expect(state(`${name}.CallAgent`).Retry).toBeUndefined();
      const begin = state(`${name}.BeginCompensation`);
      const p = begin.Parameters as Record<string, Record<string, unknown>>;
      expect(p.UpdateExpression).toBe(
        'SET #processState = :compensationInProgress, #steps.#step.#status = :failed, #steps.#step.#endedAt = :now, ' +
          '#lastError = :lastError, #completeBy = :completeBy, #updatedAt = :now REMOVE #runningStep',
      );
      expect(p.ExpressionAttributeValues).toMatchObject({
        // The first compensation to run is the last step's.
        ':completeBy': { 'N.$': `$.record.Item.Plan.M.${REVERSED[0]?.compensation.name}.N` },
        ':lastError': {
          M: {
            Source: { S: name },
            Error: { 'S.$': '$.error.Error' },
            Cause: { 'S.$': 'States.JsonToString($.error)' },
            At: { 'S.$': '$$.State.EnteredTime' },
          },
        },
      });
      expect(begin.Next).toBe(`${REVERSED[0]?.name}.Undo.Check`);
    });

    it('MarkCompleted records Completed with the confirmation id and its compensation log entry, then moves on', () => {
      const markCompleted = state(`${name}.MarkCompleted`);
      const p = markCompleted.Parameters as Record<string, Record<string, unknown>>;
      expect(p.UpdateExpression).toBe(
        'SET #steps.#step.#status = :completed, #steps.#step.#completedAt = :now, #steps.#step.#result = :result, ' +
          '#compensationLog.#step = :compensationEntry, #updatedAt = :now REMOVE #runningStep',
      );
      expect(p.ExpressionAttributeValues).toMatchObject({
        ':completed': { S: 'Completed' },
        ':result': { M: { ConfirmationId: { 'S.$': `$.results.${name}.confirmationId` } } },
        ':compensationEntry': {
          M: {
            Seq: { N: String(index + 1) },
            Compensation: { S: V1_STEPS[index]?.compensation.name },
            Undoes: { 'S.$': `States.Format('{}:${name}', $.orderId)` },
            ConfirmationId: { 'S.$': `$.results.${name}.confirmationId` },
            Status: { S: 'Recorded' },
            RecordedAt: { 'S.$': '$$.State.EnteredTime' },
          },
        },
      });
      expect(markCompleted.Next).toBe(following());
    });
  });

  describe.each(REVERSED.map((step, index) => [step.name, index] as const))(
    'undo of step %s',
    (name, index) => {
      const step = REVERSED[index] as (typeof V1_STEPS)[number];
      const previous = (): string => {
        const before = REVERSED[index + 1];
        return before ? `${before.name}.Undo.Check` : 'MarkCompensated';
      };

      it('Undo.Check: undoes what the log or this execution says is done and not undone; a TimedOut step just in case', () => {
        const check = state(`${name}.Undo.Check`);
        expect(check.Default).toBe(previous());
        expect(check.Choices?.map((choice) => choice.Next)).toEqual([
          `${name}.Undo.MarkCompensating`,
          previous(),
          `${name}.Undo.MarkCompensating`,
          `${name}.Undo.MarkUncertain`,
        ]);
      });

      it('MarkCompensating / MarkUncertain: the intent, with CompleteBy = the compensation plan deadline', () => {
        for (const intent of ['MarkCompensating', 'MarkUncertain']) {
          const p = params(`${name}.Undo.${intent}`) as Record<string, Record<string, unknown>>;
          expect(p.ExpressionAttributeValues).toMatchObject({
            ':completeBy': { 'N.$': `$.record.Item.Plan.M.${step.compensation.name}.N` },
            ':compensating': { S: 'Compensating' },
          });
          expect(state(`${name}.Undo.${intent}`).Next).toBe(`${name}.Undo.CallAgent`);
        }
      });

      it('Undo.CallAgent asks the step agent to compensate, keyed on the compensation, then MarkCompensated', () => {
        const call = state(`${name}.Undo.CallAgent`);
        const queue = synth.stack.agents[V1_STEPS.indexOf(step)]?.requests.queue;
        const queueRef = synth.stack.resolve(queue?.queueUrl) as { Ref: string };
        expect(call).toMatchObject({
          TimeoutSeconds: synth.config.timings.stepTimeoutSeconds,
          HeartbeatSeconds: synth.config.timings.stepHeartbeatSeconds,
          ResultPath: `$.compensations.${name}`,
          Next: `${name}.Undo.MarkCompensated`,
        });
        expect((call.Parameters as { QueueUrl: string }).QueueUrl).toBe(`{{Ref:${queueRef.Ref}}}`);
        const body = (call.Parameters as { MessageBody: Record<string, unknown> }).MessageBody;
        expect(
          Object.keys(body)
            .map((key) => key.replace(/\.\$$/, ''))
            .sort(),
        ).toEqual(
          Object.keys(AgentRequestSchema.shape)
            // A compensation never marks a step Running, nor records one Completed.
            .filter((field) => field !== 'markRunning' && field !== 'recordCompletion')
            .sort(),
        );
        expect(body).toMatchObject({
          step: name,
          action: 'compensate',
          operation: step.compensation.name,
          'undoes.$': `States.Format('{}:${name}', $.orderId)`,
          'idempotencyKey.$': `States.Format('{}:${step.compensation.name}', $.orderId)`,
          'deadlineEpochMillis.$': `States.StringToJson($.record.Item.Plan.M.${step.compensation.name}.N)`,
        });
        expect(call.Catch).toEqual([
          {
            ErrorEquals: [AgentError.Permanent, AgentError.RetryBudgetExhausted],
            ResultPath: '$.error',
            Next: `${name}.Undo.PermanentFailure`,
          },
          { ErrorEquals: ['States.ALL'], ResultPath: '$.abandoned', Next: 'AttemptAbandoned' },
        ]);
      });

      it('MarkCompensated stores the compensating answer, then the undo of the step before', () => {
        const markCompensated = state(`${name}.Undo.MarkCompensated`);
        expect(
          (markCompensated.Parameters as Record<string, Record<string, unknown>>).ExpressionAttributeValues,
        ).toMatchObject({
          ':result': {
            M: {
              ConfirmationId: { 'S.$': `$.compensations.${name}.confirmationId` },
              Undone: { 'BOOL.$': `$.compensations.${name}.undone` },
            },
          },
        });
        expect(markCompensated.Next).toBe(previous());
      });

      it('a refused compensation marks the order CompensationFailed, its alert in the same write', () => {
        expect(state(`${name}.Undo.PermanentFailure`).Next).toBe(`${name}.Undo.MarkCompensationFailed`);
        expect(state(`${name}.Undo.MarkCompensationFailed`).Next).toBe('CompensationFailed');
      });
    },
  );

  it('MarkProcessed sets Processed and removes LockedBy and DueShard, then succeeds', () => {
    const markProcessed = state('MarkProcessed');
    const p = markProcessed.Parameters as Record<string, Record<string, unknown>>;
    expect(p.UpdateExpression).toBe(
      'SET #processState = :processed, #updatedAt = :now REMOVE #lockedBy, #dueShard',
    );
    expect(p.ExpressionAttributeNames).toMatchObject({ '#dueShard': 'DueShard' });
    expect(p.ExpressionAttributeValues).toMatchObject({ ':processed': { S: 'Processed' } });
    expect(markProcessed.Next).toBe('Processed');
    expect(state('Processed').Type).toBe('Succeed');
  });

  it('MarkCompensated sets Compensated and removes LockedBy and DueShard, then succeeds', () => {
    const markCompensated = state('MarkCompensated');
    expect((markCompensated.Parameters as Record<string, unknown>).UpdateExpression).toBe(
      'SET #processState = :compensated, #updatedAt = :now REMOVE #lockedBy, #dueShard',
    );
    expect(markCompensated.Next).toBe('Compensated');
    expect(state('Compensated').Type).toBe('Succeed');
  });

  it('a refused compensation: CompensationFailed with LastError, out of the index, its alert in the outbox (same write), Fail', () => {
    for (const step of V1_STEPS) {
      const p = params(`${step.name}.Undo.MarkCompensationFailed`) as Record<string, Record<string, unknown>>;
      expect(p.UpdateExpression).toBe(
        'SET #processState = :compensationFailed, #compensationLog.#step.#status = :failed, ' +
          '#steps.#step.#status = :compensationFailed, #steps.#step.#endedAt = :now, #lastError = :lastError, ' +
          '#updatedAt = :now, #alertOutbox.#alertId = :alertEntry, #alertOutboxShard = :outbox, #alertOutboxSince = :now ' +
          'REMOVE #lockedBy, #dueShard',
      );
      expect(p.ExpressionAttributeValues).toMatchObject({
        ':lastError': { M: { Source: { S: step.compensation.name }, Error: { 'S.$': '$.error.Error' } } },
      });
      // The same id alertIdFor makes: `<orderId>:CompensationFailed:<attempt>`.
      expect(p.ExpressionAttributeNames).toMatchObject({
        '#alertId.$': "States.Format('{}:CompensationFailed:{}', $.orderId, $.attempt)",
      });
      expect(p.ExpressionAttributeValues).toMatchObject({
        ':alertEntry': {
          M: {
            AlertId: { 'S.$': "States.Format('{}:CompensationFailed:{}', $.orderId, $.attempt)" },
            Type: { S: 'CompensationFailed' },
            Reason: { S: 'CompensationRefused' },
            Attempt: { 'N.$': "States.Format('{}', $.attempt)" },
            CompensationFailureCount: { 'N.$': '$.record.Item.CompensationFailureCount.N' },
            Step: { 'S.$': '$.failedStep' },
          },
        },
      });
    }
    expect(state('CompensationFailed')).toMatchObject({ Type: 'Fail', Error: 'CompensationFailed' });
  });

  it('AttemptAbandoned is a Fail state reached only from agent calls: it touches nothing', () => {
    expect(state('AttemptAbandoned')).toMatchObject({ Type: 'Fail', Error: 'AttemptAbandoned' });
    const sources = [...states]
      .filter(
        ([, s]) =>
          s.Next === 'AttemptAbandoned' ||
          s.Default === 'AttemptAbandoned' ||
          s.Catch?.some((c) => c.Next === 'AttemptAbandoned'),
      )
      .map(([name]) => name);
    expect(sources.sort()).toEqual(
      V1_STEPS.flatMap((step) => [`${step.name}.CallAgent`, `${step.name}.Undo.CallAgent`]).sort(),
    );
  });
});
