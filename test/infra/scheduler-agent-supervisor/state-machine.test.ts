import {
  AgentError,
  AgentRequestSchema,
  ORDER_STEPS,
  renderTransition,
  STATE_TRANSITIONS,
  TRANSITION_NAMES,
  type TransitionName,
  WORKFLOW_VERSION,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type AslDefinition, type AslState, allStates } from '../../../lib/platform/guardrails';
import {
  CONDITIONAL_CHECK_FAILED,
  DATA_TASK_TIMEOUT_SECONDS,
} from '../../../lib/scheduler-agent-supervisor/scheduler/data-tasks';
import { type SynthesizedStack, stateMachineDefinition, synthesizeStack } from '../support/synth';

const FENCE = '#lockedBy = :instanceId AND #processState = :processing';

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
    definition = stateMachineDefinition(synth.template);
    states = allStates(definition);
  });

  it('has exactly the stable, readable state names generated from ORDER_STEPS', () => {
    const perStep = ORDER_STEPS.flatMap((step) =>
      ['Check', 'MarkRunning', 'CallAgent', 'MarkCompleted', 'PermanentFailure'].map(
        (suffix) => `${step.name}.${suffix}`,
      ),
    );
    const shared = [
      'LoadStateRecord',
      'LoadOrder',
      'CheckLock',
      'FencedOut',
      'MarkProcessed',
      'Processed',
      'MarkError',
      'RaiseOrderFailedAlert',
      'OrderFailed',
      'AttemptAbandoned',
    ];
    expect([...states.keys()].sort()).toEqual([...shared, ...perStep].sort());
  });

  it('is JSONPath only (no JSONata, no variables) and carries the workflow version', () => {
    expect(definition.QueryLanguage ?? 'JSONPath').toBe('JSONPath');
    expect(definition.Comment).toContain(`workflow version ${WORKFLOW_VERSION}`);
    for (const [name, s] of states) {
      for (const field of ['QueryLanguage', 'Arguments', 'Output', 'Assign']) {
        expect({ name, has: field in s }).toEqual({ name, has: false });
      }
    }
  });

  it('bounds the whole execution by the plan (TimeoutSeconds)', () => {
    const { stepTimeoutSeconds, stepDeadlineSlackSeconds } = synth.config.timings;
    expect(definition.TimeoutSeconds).toBeGreaterThanOrEqual(
      ORDER_STEPS.length * (stepTimeoutSeconds + stepDeadlineSlackSeconds),
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

  it('CheckLock continues only when LockedBy is this instance and the record is Processing, else FencedOut', () => {
    const checkLock = state('CheckLock');
    expect(checkLock.Type).toBe('Choice');
    expect(checkLock.Default).toBe('FencedOut');
    expect(checkLock.Choices).toHaveLength(1);
    const rule = checkLock.Choices?.[0] as { And: Record<string, unknown>[]; Next: string };
    expect(rule.Next).toBe(`${ORDER_STEPS[0].name}.Check`);
    expect(rule.And).toEqual(
      expect.arrayContaining([
        { Variable: '$.record.Item.LockedBy.S', StringEqualsPath: '$.instanceId' },
        { Variable: '$.record.Item.ProcessState.S', StringEquals: 'Processing' },
        { Variable: '$.record.Item.LockedBy.S', IsPresent: true },
      ]),
    );
    expect(state('FencedOut').Type).toBe('Succeed');
  });

  it('every store update is fenced on LockedBy and ProcessState, and a failed fence ends in FencedOut', () => {
    const updates = [...states].filter(([, s]) => s.Resource?.endsWith(':states:::dynamodb:updateItem'));
    expect(updates.map(([name]) => name).sort()).toEqual(
      [
        ...ORDER_STEPS.flatMap((step) => [`${step.name}.MarkRunning`, `${step.name}.MarkCompleted`]),
        'MarkProcessed',
        'MarkError',
      ].sort(),
    );
    for (const [name, update] of updates) {
      const p = update.Parameters as Record<string, Record<string, unknown>>;
      expect({ name, condition: p.ConditionExpression }).toEqual({ name, condition: FENCE });
      expect(p.ExpressionAttributeNames).toMatchObject({
        '#lockedBy': 'LockedBy',
        '#processState': 'ProcessState',
      });
      expect(p.ExpressionAttributeValues).toMatchObject({
        ':instanceId': { 'S.$': '$.instanceId' },
        ':processing': { S: 'Processing' },
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
      const step = ORDER_STEPS.find((candidate) => name.startsWith(`${candidate.name}.`))?.name;
      const rendered = renderTransition(transition, step === undefined ? {} : { step });
      const p = update.Parameters as Record<string, unknown>;
      expect({ name, update: p.UpdateExpression, condition: p.ConditionExpression }).toEqual({
        name,
        update: rendered.updateExpression,
        condition: rendered.conditionExpression,
      });
      expect(p.ExpressionAttributeNames).toEqual(rendered.names);
      expect(Object.keys(p.ExpressionAttributeValues as object).sort()).toEqual(
        [...Object.keys(rendered.constants), ...Object.keys(rendered.params)].sort(),
      );
      used.add(transition);
    }
    expect([...used].sort()).toEqual(
      TRANSITION_NAMES.filter((name) => STATE_TRANSITIONS[name].by === 'scheduler').sort(),
    );
  });

  it('never writes the state store outside the fenced updates (no putItem/deleteItem, no other table writes)', () => {
    const resources = [...states.values()].map((s) => s.Resource).filter((r): r is string => r !== undefined);
    const verbs = resources.map((r) => r.slice(r.indexOf(':::') + 3));
    expect([...new Set(verbs)].sort()).toEqual(
      [
        'dynamodb:getItem',
        'dynamodb:updateItem',
        'events:putEvents',
        'sqs:sendMessage.waitForTaskToken',
      ].sort(),
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

  describe.each(ORDER_STEPS.map((step, index) => [step.name, index] as const))('step %s', (name, index) => {
    const following = (): string => {
      const next = ORDER_STEPS[index + 1];
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
        'SET #steps.#step.#status = :running, #steps.#step.#startedAt = :now, #completeBy = :completeBy, #updatedAt = :now',
      );
      expect(p.ExpressionAttributeNames).toMatchObject({ '#step': name, '#completeBy': 'CompleteBy' });
      expect(p.ExpressionAttributeValues).toMatchObject({
        ':running': { S: 'Running' },
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
          // `undoes` is sent by compensation calls only.
          .filter((field) => field !== 'undoes')
          .sort(),
      );
      const { timings } = synth.config;
      expect(body).toMatchObject({
        'taskToken.$': '$$.Task.Token',
        step: name,
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

    it('a permanent agent failure goes to MarkError (via the step marker), anything else abandons the attempt', () => {
      expect(state(`${name}.CallAgent`).Catch).toEqual([
        { ErrorEquals: [AgentError.Permanent], ResultPath: '$.error', Next: `${name}.PermanentFailure` },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.abandoned', Next: 'AttemptAbandoned' },
      ]);
      expect(state(`${name}.CallAgent`).Retry).toBeUndefined();
      expect(state(`${name}.PermanentFailure`)).toMatchObject({
        Type: 'Pass',
        Result: name,
        ResultPath: '$.failedStep',
        Next: 'MarkError',
      });
    });

    it('MarkCompleted records Completed with the confirmation id, then moves to the next step', () => {
      const markCompleted = state(`${name}.MarkCompleted`);
      const p = markCompleted.Parameters as Record<string, Record<string, unknown>>;
      expect(p.UpdateExpression).toBe(
        'SET #steps.#step.#status = :completed, #steps.#step.#completedAt = :now, #steps.#step.#result = :result, #updatedAt = :now',
      );
      expect(p.ExpressionAttributeValues).toMatchObject({
        ':completed': { S: 'Completed' },
        ':result': { M: { ConfirmationId: { 'S.$': `$.results.${name}.confirmationId` } } },
      });
      expect(markCompleted.Next).toBe(following());
    });
  });

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

  it('MarkError sets Error with LastError, removes LockedBy and DueShard, alerts an operator and fails', () => {
    const markError = state('MarkError');
    const p = markError.Parameters as Record<string, Record<string, unknown>>;
    expect(p.UpdateExpression).toBe(
      'SET #processState = :error, #lastError = :lastError, #updatedAt = :now REMOVE #lockedBy, #dueShard',
    );
    expect(p.ExpressionAttributeValues).toMatchObject({
      ':error': { S: 'Error' },
      ':lastError': {
        M: {
          Source: { 'S.$': '$.failedStep' },
          Error: { 'S.$': '$.error.Error' },
          Cause: { 'S.$': 'States.JsonToString($.error)' },
          At: { 'S.$': '$$.State.EnteredTime' },
        },
      },
    });
    expect(markError.Next).toBe('RaiseOrderFailedAlert');
    const alert = state('RaiseOrderFailedAlert');
    expect(alert.Resource).toMatch(/:states:::events:putEvents$/);
    const entry = (alert.Parameters as { Entries: Record<string, unknown>[] }).Entries[0];
    const busRef = synth.stack.resolve(synth.stack.alerts.bus.eventBusArn) as { 'Fn::GetAtt': string[] };
    expect(entry).toMatchObject({
      Source: 'order-processing',
      DetailType: 'OrderFailed',
      EventBusName: `{{GetAtt:${busRef['Fn::GetAtt'].join('.')}}}`,
      Detail: {
        'orderId.$': '$.orderId',
        reason: 'AgentPermanentFailure',
        'failureCount.$': 'States.StringToJson($.record.Item.FailureCount.N)',
        'attempt.$': '$.attempt',
      },
    });
    expect(alert.Next).toBe('OrderFailed');
    expect(state('OrderFailed')).toMatchObject({ Type: 'Fail', Error: 'OrderFailed' });
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
    expect(sources.sort()).toEqual(ORDER_STEPS.map((step) => `${step.name}.CallAgent`).sort());
  });
});
