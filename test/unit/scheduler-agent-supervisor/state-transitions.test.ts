import {
  ADMISSION_INDEX,
  ALERT_NAME_PLACEHOLDER,
  ALERT_OUTBOX_SHARD,
  alertIdFor,
  appliesToStep,
  bindNames,
  bindParams,
  type ParamType,
  ProcessState,
  type RenderedTransition,
  renderStateTransition,
  renderTransition,
  STATE_INDEX,
  STATE_TRANSITIONS,
  StateAttr,
  type StateTransition,
  StepAttr,
  StepStatus,
  TERMINAL_STATES,
  THIS_STEP,
  TRANSITION_NAMES,
  type TransitionName,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';

const render = (name: TransitionName): RenderedTransition =>
  renderTransition(name, appliesToStep(STATE_TRANSITIONS[name]) ? { step: 'ChargePayment' } : {});

/** The value a transition writes into ProcessState, if it writes one. */
const processStateSetBy = (transition: StateTransition): unknown =>
  transition.set.find(([path]) => path.length === 1 && path[0] === StateAttr.ProcessState)?.[1];
const removes = (transition: StateTransition, attribute: string): boolean =>
  transition.remove.some((path) => path.length === 1 && path[0] === attribute);
const sets = (transition: StateTransition, attribute: string): boolean =>
  transition.set.some(([path]) => path.length === 1 && path[0] === attribute);

describe('state transitions table', () => {
  it('holds every transition of the record, each with its writer', () => {
    expect(Object.fromEntries(TRANSITION_NAMES.map((name) => [name, STATE_TRANSITIONS[name].by]))).toEqual({
      claim: 'starter',
      claimCompensation: 'starter',
      release: 'starter',
      releaseCompensation: 'starter',
      markStepRunning: 'scheduler',
      markStepCompleted: 'scheduler',
      markStepCompletedHandingOver: 'scheduler',
      progressStepRunning: 'agent',
      completeStep: 'agent',
      completeOrder: 'agent',
      markProcessed: 'scheduler',
      beginCompensation: 'scheduler',
      beginCompensationUncertain: 'scheduler',
      markCompensating: 'scheduler',
      markCompensatingUncertain: 'scheduler',
      markStepCompensated: 'scheduler',
      markCompensated: 'scheduler',
      markCompensationFailed: 'scheduler',
      resetExpired: 'supervisor',
      resetExpiredInStep: 'supervisor',
      failExpired: 'supervisor',
      failExpiredInStep: 'supervisor',
      restartPending: 'supervisor',
      resetExpiredCompensation: 'supervisor',
      failExpiredCompensation: 'supervisor',
      restartCompensation: 'supervisor',
      operatorRetry: 'operator',
      operatorRetryCompensation: 'operator',
      operatorCancel: 'operator',
    });
  });

  it.each(TRANSITION_NAMES)('%s is fenced on LockedBy first', (name) => {
    expect(render(name).conditionExpression).toMatch(
      /^(attribute_not_exists\(#lockedBy\)|#lockedBy = :\w+) /,
    );
  });

  it.each(TRANSITION_NAMES)('%s names exactly the placeholders its expressions use', (name) => {
    const rendered = render(name);
    const text = `${rendered.updateExpression} ${rendered.conditionExpression}`;
    const used = (sigil: string) =>
      [...new Set(text.match(new RegExp(`${sigil}[A-Za-z0-9]+`, 'g')) ?? [])].sort();
    expect(used('#')).toEqual(
      [...Object.keys(rendered.names), ...Object.keys(rendered.nameParams ?? {})].sort(),
    );
    expect(used(':')).toEqual(
      [
        ...Object.keys(rendered.constants),
        ...Object.keys(rendered.params),
        ...Object.keys(rendered.maps),
        ...(rendered.emptyLists ?? []),
        ...(rendered.emptyMaps ?? []),
      ].sort(),
    );
  });

  /** Progress writes, each with the step write it is: ProgressAt instead of UpdatedAt, nothing else. */
  const PROGRESS_WRITES: readonly (readonly [TransitionName, TransitionName])[] = [
    ['progressStepRunning', 'markStepRunning'],
  ];
  /** The agents' step writes: progressStepRunning, and the compact shape's completeStep. */
  const STEP_WRITES: readonly TransitionName[] = [...PROGRESS_WRITES.map(([name]) => name), 'completeStep'];

  it.each(TRANSITION_NAMES.filter((name) => !STEP_WRITES.includes(name)))('%s stamps UpdatedAt', (name) => {
    expect(sets(STATE_TRANSITIONS[name], StateAttr.UpdatedAt)).toBe(true);
  });

  it.each(STEP_WRITES)(
    '%s stamps ProgressAt and touches no StateIndex or AdmissionIndex attribute',
    (name) => {
      const transition: StateTransition = STATE_TRANSITIONS[name];
      expect(sets(transition, StateAttr.ProgressAt)).toBe(true);
      const indexed = [STATE_INDEX, ADMISSION_INDEX].flatMap((index) => [
        index.partitionKey,
        index.sortKey,
        ...index.projectedAttributes,
      ]);
      const touched = [
        ...transition.set.map(([path]) => path[0]),
        ...transition.remove.map((path) => path[0]),
      ];
      expect(touched.filter((attribute) => indexed.includes(attribute as never))).toEqual([]);
    },
  );

  it.each(PROGRESS_WRITES)('%s renders as %s, with ProgressAt for UpdatedAt', (progress, step) => {
    const rendered = render(step);
    expect(STATE_TRANSITIONS[progress].by).toBe('agent');
    expect(render(progress)).toEqual({
      ...rendered,
      updateExpression: rendered.updateExpression.replace('#updatedAt = :now', '#progressAt = :now'),
      names: {
        ...Object.fromEntries(Object.entries(rendered.names).filter(([name]) => name !== '#updatedAt')),
        '#progressAt': 'ProgressAt',
      },
    });
  });

  it('completeStep renders as markStepCompletedHandingOver with ProgressAt for UpdatedAt, on a step not Completed yet', () => {
    const rendered = render('markStepCompletedHandingOver');
    const complete = render('completeStep');
    expect(STATE_TRANSITIONS.completeStep.by).toBe('agent');
    expect(complete.updateExpression).toBe(
      rendered.updateExpression.replace('#updatedAt = :now', '#progressAt = :now'),
    );
    // The same fence (this execution's lock) and Processing, and the step in a state before Completed.
    for (const clause of rendered.conditionExpression.split(' AND '))
      expect(complete.conditionExpression).toContain(clause);
    for (const status of [StepStatus.NotStarted, StepStatus.Running, StepStatus.TimedOut]) {
      expect(Object.values(complete.constants)).toContain(status);
    }
  });

  it('the claim stamps ProgressAt, and the release is fenced on it: no step write since the claim', () => {
    expect(sets(STATE_TRANSITIONS.claim, StateAttr.ProgressAt)).toBe(true);
    expect(renderTransition('release').conditionExpression).toContain('#progressAt = :claimedAt');
  });

  it('a transition into a terminal state unlocks the record and takes it out of the supervisor index', () => {
    const terminal = TRANSITION_NAMES.filter((name) => {
      const written = processStateSetBy(STATE_TRANSITIONS[name]);
      return (
        written !== undefined &&
        'constant' in (written as object) &&
        TERMINAL_STATES.includes((written as { constant: ProcessState }).constant)
      );
    });
    expect(terminal.sort()).toEqual([
      'completeOrder',
      'failExpired',
      'failExpiredCompensation',
      'failExpiredInStep',
      'markCompensated',
      'markCompensationFailed',
      'markProcessed',
    ]);
    for (const name of terminal) {
      expect({ name, unlocks: removes(STATE_TRANSITIONS[name], StateAttr.LockedBy) }).toEqual({
        name,
        unlocks: true,
      });
      expect({ name, leavesIndex: removes(STATE_TRANSITIONS[name], StateAttr.DueShard) }).toEqual({
        name,
        leavesIndex: true,
      });
    }
  });

  it('a transition back to Pending unlocks the record and keeps it in the index; one to Processing locks it', () => {
    for (const name of TRANSITION_NAMES) {
      const transition = STATE_TRANSITIONS[name];
      const written = processStateSetBy(transition) as { constant?: string } | undefined;
      if (written?.constant === ProcessState.Pending) {
        // Unlocked: it removes the lock, or it only applies to a record nobody holds and takes no lock.
        const unlocks =
          removes(transition, StateAttr.LockedBy) ||
          (transition.fence.lockedBy === 'absent' && !sets(transition, StateAttr.LockedBy));
        expect({ name, unlocks }).toEqual({ name, unlocks: true });
        expect({ name, leavesIndex: removes(transition, StateAttr.DueShard) }).toEqual({
          name,
          leavesIndex: false,
        });
      }
      if (written?.constant === ProcessState.Processing) {
        expect({ name, locks: sets(transition, StateAttr.LockedBy) }).toEqual({ name, locks: true });
        expect(transition.fence).toEqual({ lockedBy: 'absent' });
      }
    }
  });

  it('a transition into CompensationInProgress keeps the lock of the execution that compensates, in the index; an operator’s leaves it unlocked for the starter', () => {
    const into = TRANSITION_NAMES.filter(
      (name) =>
        (processStateSetBy(STATE_TRANSITIONS[name]) as { constant?: string } | undefined)?.constant ===
        ProcessState.CompensationInProgress,
    );
    expect(into).toEqual([
      'beginCompensation',
      'beginCompensationUncertain',
      'operatorRetryCompensation',
      'operatorCancel',
    ]);
    for (const name of ['operatorRetryCompensation', 'operatorCancel'] as const) {
      const operator = STATE_TRANSITIONS[name];
      expect({
        name,
        by: operator.by,
        fence: operator.fence,
        locks: sets(operator, StateAttr.LockedBy),
      }).toEqual({
        name,
        by: 'operator',
        fence: { lockedBy: 'absent' },
        locks: false,
      });
      expect({ name, indexed: sets(operator, StateAttr.DueShard) }).toEqual({ name, indexed: true });
    }
    for (const name of ['beginCompensation', 'beginCompensationUncertain'] as const) {
      const begin = STATE_TRANSITIONS[name];
      expect({ name, fence: begin.fence }).toEqual({ name, fence: { lockedBy: { param: 'instanceId' } } });
      expect({
        name,
        unlocks: removes(begin, StateAttr.LockedBy),
        leavesIndex: removes(begin, StateAttr.DueShard),
        endsRunningStep: removes(begin, StateAttr.RunningStep),
      }).toEqual({ name, unlocks: false, leavesIndex: false, endsRunningStep: true });
    }
  });

  it('beginCompensationUncertain (a spent retry budget) is beginCompensation with the step TimedOut, not Failed', () => {
    const failed = renderTransition('beginCompensation', { step: 'ReserveInventory' });
    const uncertain = renderTransition('beginCompensationUncertain', { step: 'ReserveInventory' });
    expect(uncertain.conditionExpression).toBe(failed.conditionExpression);
    expect(uncertain.updateExpression).toBe(failed.updateExpression.replace(':failed', ':timedOut'));
    expect(uncertain.updateExpression).not.toBe(failed.updateExpression);
    expect(uncertain.constants).toEqual({
      ':processing': 'Processing',
      ':compensationInProgress': 'CompensationInProgress',
      ':timedOut': 'TimedOut',
    });
    expect(uncertain.params).toEqual(failed.params);
    expect(uncertain.names).toEqual(failed.names);
  });

  it('every write of a compensating execution is fenced on its lock and on CompensationInProgress', () => {
    for (const name of [
      'markCompensating',
      'markCompensatingUncertain',
      'markStepCompensated',
      'markCompensated',
      'markCompensationFailed',
    ] as const) {
      const rendered = render(name);
      expect({ name, condition: rendered.conditionExpression }).toEqual({
        name,
        condition: expect.stringMatching(
          /^#lockedBy = :instanceId AND #processState = :compensationInProgress( AND .*)?$/,
        ),
      });
    }
  });

  it('renders MarkCompleted with the compensation log entry as one map value, and REMOVE RunningStep', () => {
    const rendered = renderTransition('markStepCompleted', { step: 'ChargePayment' });
    expect(rendered.updateExpression).toBe(
      'SET #steps.#step.#status = :completed, #steps.#step.#completedAt = :now, #steps.#step.#result = :result, ' +
        '#compensationLog.#step = :compensationEntry, #updatedAt = :now REMOVE #runningStep',
    );
    expect(rendered.maps).toEqual({
      ':compensationEntry': {
        Seq: { param: 'seq', type: 'N' },
        Compensation: { param: 'compensation', type: 'S' },
        Undoes: { param: 'undoes', type: 'S' },
        ConfirmationId: { param: 'confirmationId', type: 'S' },
        Status: { constant: 'Recorded' },
        RecordedAt: { param: 'now', type: 'S' },
      },
    });
    // Parameters used only inside the map have no placeholder of their own.
    expect(Object.keys(rendered.params).sort()).toEqual([':instanceId', ':now', ':result']);
  });

  it('renders the uncertain intent with a boolean constant, only where no log entry exists', () => {
    const rendered = renderTransition('markCompensatingUncertain', { step: 'ChargePayment' });
    expect(rendered.conditionExpression).toBe(
      '#lockedBy = :instanceId AND #processState = :compensationInProgress AND attribute_not_exists(#compensationLog.#step)',
    );
    expect(rendered.maps[':uncertainEntry']).toMatchObject({
      Uncertain: { constant: true },
      Status: { constant: 'Compensating' },
    });
    expect(renderTransition('markCompensating', { step: 'ChargePayment' }).conditionExpression).toBe(
      '#lockedBy = :instanceId AND #processState = :compensationInProgress AND attribute_exists(#compensationLog.#step)',
    );
  });

  it('the supervisor marks the running step TimedOut only while it is still the RunningStep', () => {
    for (const name of ['resetExpiredInStep', 'failExpiredInStep'] as const) {
      const rendered = renderTransition(name, { step: 'ChargePayment' });
      expect(rendered.conditionExpression).toBe(
        `#lockedBy = :seenLock AND #processState = :processing AND #completeBy = :seenCompleteBy AND #failureCount = :seenFailureCount AND #runningStep = :runningStep${name === 'failExpiredInStep' ? ' AND #attempt = :attempt' : ''}`,
      );
      expect(rendered.updateExpression).toContain('#steps.#step.#status = :timedOut');
      expect(rendered.updateExpression).toMatch(/REMOVE .*#runningStep/);
    }
    for (const name of ['resetExpired', 'failExpired'] as const) {
      expect(renderTransition(name).conditionExpression).toMatch(
        /AND attribute_not_exists\(#runningStep\)( AND #attempt = :attempt)?$/,
      );
    }
  });

  it('renders the compensation transitions of the supervisor and the starter', () => {
    for (const name of ['resetExpiredCompensation', 'failExpiredCompensation'] as const) {
      expect(renderTransition(name).conditionExpression).toBe(
        `#lockedBy = :seenLock AND #processState = :compensationInProgress AND #completeBy = :seenCompleteBy AND #compensationFailureCount = :seenCompensationFailureCount${name === 'failExpiredCompensation' ? ' AND #attempt = :attempt' : ''}`,
      );
    }
    expect(renderTransition('resetExpiredCompensation').updateExpression).toBe(
      'SET #compensationFailureCount = :compensationFailureCount, #completeBy = :completeBy, #updatedAt = :now REMOVE #lockedBy',
    );
    expect(renderTransition('claimCompensation').conditionExpression).toBe(
      'attribute_not_exists(#lockedBy) AND #processState = :compensationInProgress AND #attempt = :seenAttempt AND #completeBy <= :claimableUntil',
    );
    expect(renderTransition('claimCompensation').updateExpression).not.toContain('#processState');
    expect(renderTransition('restartCompensation').conditionExpression).toBe(
      'attribute_not_exists(#lockedBy) AND #processState = :compensationInProgress AND #completeBy = :seenCompleteBy AND #attempt = :seenAttempt',
    );
  });

  it('renders the scheduler transitions to the expressions its UpdateItem states send', () => {
    expect(renderTransition('markStepRunning', { step: 'ChargePayment' })).toEqual({
      updateExpression:
        'SET #steps.#step.#status = :running, #steps.#step.#startedAt = :now, #runningStep = :runningStep, #completeBy = :completeBy, #updatedAt = :now',
      conditionExpression: '#lockedBy = :instanceId AND #processState = :processing',
      names: {
        '#lockedBy': 'LockedBy',
        '#processState': 'ProcessState',
        '#steps': 'Steps',
        '#step': 'ChargePayment',
        '#status': 'Status',
        '#startedAt': 'StartedAt',
        '#runningStep': 'RunningStep',
        '#completeBy': 'CompleteBy',
        '#updatedAt': 'UpdatedAt',
      },
      constants: { ':processing': 'Processing', ':running': 'Running' },
      params: {
        ':instanceId': { name: 'instanceId', type: 'S' },
        ':now': { name: 'now', type: 'S' },
        ':runningStep': { name: 'runningStep', type: 'S' },
        ':completeBy': { name: 'completeBy', type: 'N' },
      },
      maps: {},
    });
    expect(renderTransition('markProcessed').updateExpression).toBe(
      'SET #processState = :processed, #updatedAt = :now REMOVE #lockedBy, #dueShard',
    );
    expect(renderTransition('beginCompensation', { step: 'ChargePayment' }).updateExpression).toBe(
      'SET #processState = :compensationInProgress, #steps.#step.#status = :failed, #steps.#step.#endedAt = :now, ' +
        '#lastError = :lastError, #completeBy = :completeBy, #updatedAt = :now REMOVE #runningStep',
    );
    expect(renderTransition('markCompensationFailed', { step: 'ChargePayment' }).updateExpression).toBe(
      'SET #processState = :compensationFailed, #compensationLog.#step.#status = :failed, ' +
        '#steps.#step.#status = :compensationFailed, #steps.#step.#endedAt = :now, #lastError = :lastError, ' +
        '#updatedAt = :now, #alertOutbox.#alertId = :alertEntry, #alertOutboxShard = :outbox, #alertOutboxSince = :now ' +
        'REMOVE #lockedBy, #dueShard',
    );
  });

  it('renders the starter claim with its OR clause, fenced on an absent lock', () => {
    expect(renderTransition('claim').conditionExpression).toBe(
      'attribute_not_exists(#lockedBy) AND #processState = :pending AND #attempt = :seenAttempt AND (#attempt = :zero OR #completeBy <= :claimableUntil)',
    );
    expect(renderTransition('claim').constants).toEqual({
      ':pending': 'Pending',
      ':zero': 0,
      ':processing': 'Processing',
    });
    expect(renderTransition('claim').maps).toEqual({});
  });

  it('renders the supervisor transitions fenced on the expired lock, deadline and failure count it read', () => {
    for (const name of ['resetExpired', 'failExpired'] as const) {
      expect(renderTransition(name).conditionExpression).toBe(
        `#lockedBy = :seenLock AND #processState = :processing AND #completeBy = :seenCompleteBy AND #failureCount = :seenFailureCount AND attribute_not_exists(#runningStep)${name === 'failExpired' ? ' AND #attempt = :attempt' : ''}`,
      );
    }
  });

  it('knows which transitions apply to one step', () => {
    expect(TRANSITION_NAMES.filter((name) => appliesToStep(STATE_TRANSITIONS[name])).sort()).toEqual([
      'beginCompensation',
      'beginCompensationUncertain',
      'completeOrder',
      'completeStep',
      'failExpiredInStep',
      'markCompensating',
      'markCompensatingUncertain',
      'markCompensationFailed',
      'markStepCompensated',
      'markStepCompleted',
      'markStepCompletedHandingOver',
      'markStepRunning',
      'progressStepRunning',
      'resetExpiredInStep',
    ]);
  });
});

describe('markStepCompletedHandingOver (lean shape)', () => {
  it('is markStepCompleted plus CompleteBy = the next step deadline, same fence and condition', () => {
    const completed = renderTransition('markStepCompleted', { step: 'Pack' });
    const handingOver = renderTransition('markStepCompletedHandingOver', { step: 'Pack' });
    expect(handingOver.conditionExpression).toBe(completed.conditionExpression);
    expect(handingOver.updateExpression).toBe(
      completed.updateExpression.replace(' REMOVE ', ', #completeBy = :completeBy REMOVE '),
    );
    expect(handingOver.params).toEqual({
      ...completed.params,
      ':completeBy': { name: 'completeBy', type: 'N' },
    });
  });
});

describe('alert outbox writes (DESIGN.md, Alert outbox)', () => {
  /** The transitions into Error or CompensationFailed: each raises its alert in the same write. */
  const alerting = TRANSITION_NAMES.filter((name) => {
    const state = (processStateSetBy(STATE_TRANSITIONS[name]) as { constant?: unknown } | undefined)
      ?.constant;
    return state === ProcessState.Error || state === ProcessState.CompensationFailed;
  });
  const options = (name: TransitionName) =>
    appliesToStep(STATE_TRANSITIONS[name]) ? { step: 'ChargePayment' } : {};

  it('the transitions that raise alerts are exactly those into Error or CompensationFailed', () => {
    const writesOutbox = TRANSITION_NAMES.filter((name) =>
      renderTransition(name, options(name)).updateExpression.includes('#alertOutbox.#alertId'),
    );
    expect(writesOutbox.sort()).toEqual([...alerting].sort());
    expect(alerting.sort()).toEqual([
      'failExpired',
      'failExpiredCompensation',
      'failExpiredInStep',
      'markCompensationFailed',
    ]);
  });

  it.each(['failExpired', 'failExpiredInStep', 'failExpiredCompensation', 'markCompensationFailed'] as const)(
    '%s writes its alert entry, named by the bound alertId, and the AlertOutboxIndex keys, checked on the attempt',
    (name) => {
      const rendered = renderTransition(name, options(name));
      expect(rendered.updateExpression).toContain(
        '#alertOutbox.#alertId = :alertEntry, #alertOutboxShard = :outbox, #alertOutboxSince = :now',
      );
      expect(rendered.nameParams).toEqual({ [ALERT_NAME_PLACEHOLDER]: { name: 'alertId', type: 'S' } });
      expect(rendered.names['#alertOutbox']).toBe(StateAttr.AlertOutbox);
      expect(rendered.constants[':outbox']).toBe(ALERT_OUTBOX_SHARD);
      expect(rendered.conditionExpression).toMatch(/ AND #attempt = :attempt$/);
      const entry = rendered.maps[':alertEntry'] ?? {};
      const type =
        name === 'failExpired' || name === 'failExpiredInStep' ? 'OrderFailed' : 'CompensationFailed';
      expect(entry).toMatchObject({
        AlertId: { param: 'alertId', type: 'S' },
        Type: { constant: type },
        At: { param: 'now', type: 'S' },
        Attempt: { param: 'attempt', type: 'N' },
        LastError: { param: 'lastError', type: 'M' },
        CorrelationId: { param: 'correlationId', type: 'S' },
      });
    },
  );

  it('binds the alert name from the caller’s values, checked like every parameter', () => {
    const rendered = renderTransition('failExpired');
    const values = {
      seenLock: 'o-1--attempt-3',
      seenCompleteBy: 1,
      seenFailureCount: 2,
      failureCount: 3,
      lastError: {},
      now: '2026-01-01T00:00:00.000Z',
      alertId: alertIdFor('o-1', 'OrderFailed', 3),
      attempt: 3,
      correlationId: 'run-1',
    };
    const typeOf = (value: unknown) =>
      typeof value === 'string' ? 'S' : typeof value === 'number' ? 'N' : ('M' as const);
    const compose = {
      constant: (value: unknown) => value,
      map: (entries: Record<string, unknown>) => entries,
    };
    const bound = bindParams('failExpired', rendered, values, typeOf, compose);
    expect(bindNames(rendered, values, String)).toEqual({ '#alertId': 'o-1:OrderFailed:3' });
    expect(bound[':alertEntry']).toMatchObject({
      AlertId: 'o-1:OrderFailed:3',
      Type: 'OrderFailed',
      Attempt: 3,
    });
    expect(() => bindParams('failExpired', rendered, { ...values, alertId: 7 }, typeOf, compose)).toThrow(
      "parameter 'alertId' must be of type S, got N",
    );
  });

  it('the claims create the outbox map when absent, so every later alert can SET its entry by path', () => {
    for (const name of ['claim', 'claimCompensation'] as const) {
      const rendered = renderTransition(name);
      expect(rendered.updateExpression).toContain('#alertOutbox = if_not_exists(#alertOutbox, :emptyMap)');
      expect(rendered.emptyMaps).toEqual([':emptyMap']);
    }
  });

  it('one alert per (order, type, attempt)', () => {
    expect(alertIdFor('o-1', 'OrderFailed', 3)).toBe('o-1:OrderFailed:3');
    expect(alertIdFor('o-1', 'OrderFailed', 4)).not.toBe(alertIdFor('o-1', 'OrderFailed', 3));
    expect(alertIdFor('o-1', 'CompensationFailed', 3)).not.toBe(alertIdFor('o-1', 'OrderFailed', 3));
  });
});

describe('operator transitions', () => {
  const operatorTransitions = TRANSITION_NAMES.filter((name) => STATE_TRANSITIONS[name].by === 'operator');

  it.each(operatorTransitions)(
    '%s applies only to an unlocked record still at the UpdatedAt the operator saw',
    (name) => {
      const rendered = render(name);
      expect(rendered.conditionExpression).toMatch(/^attribute_not_exists\(#lockedBy\) AND /);
      expect(rendered.conditionExpression).toMatch(/ AND #updatedAt = :seenUpdatedAt$/);
    },
  );

  it.each(operatorTransitions)(
    '%s puts the record back in the supervisor index and appends to OperatorLog',
    (name) => {
      const rendered = render(name);
      expect(rendered.updateExpression).toContain(
        '#completeBy = :completeBy, #dueShard = :dueShard, #updatedAt = :now, #operatorLog = list_append(if_not_exists(#operatorLog, :emptyList), :entry)',
      );
      expect(rendered.updateExpression).not.toContain('REMOVE');
      expect(rendered.emptyLists).toEqual([':emptyList']);
      expect(rendered.params[':entry']).toEqual({ name: 'entry', type: 'L' });
    },
  );

  it('renders a retry from Error to Pending with its failures reset', () => {
    expect(renderTransition('operatorRetry')).toMatchObject({
      updateExpression:
        'SET #processState = :pending, #failureCount = :zero, #completeBy = :completeBy, #dueShard = :dueShard, #updatedAt = :now, #operatorLog = list_append(if_not_exists(#operatorLog, :emptyList), :entry)',
      conditionExpression:
        'attribute_not_exists(#lockedBy) AND #processState = :error AND #updatedAt = :seenUpdatedAt',
      constants: { ':error': 'Error', ':pending': 'Pending', ':zero': 0 },
    });
  });

  it('renders a compensation retry from CompensationFailed with its compensation failures reset', () => {
    expect(renderTransition('operatorRetryCompensation')).toMatchObject({
      updateExpression: expect.stringMatching(
        /^SET #processState = :compensationInProgress, #compensationFailureCount = :zero, /,
      ),
      conditionExpression:
        'attribute_not_exists(#lockedBy) AND #processState = :compensationFailed AND #updatedAt = :seenUpdatedAt',
    });
  });

  it('renders a cancel from Pending, Error or Processed, and exactly the state the operator saw', () => {
    expect(renderTransition('operatorCancel').conditionExpression).toBe(
      'attribute_not_exists(#lockedBy) AND (#processState = :pending OR #processState = :error OR #processState = :processed) AND #processState = :seenState AND #updatedAt = :seenUpdatedAt',
    );
    expect(renderTransition('operatorCancel').updateExpression).toMatch(
      /^SET #processState = :compensationInProgress, #completeBy/,
    );
  });

  it('binds the appended entry as a list', () => {
    const typeOf = (value: unknown): ParamType | undefined =>
      Array.isArray(value) ? 'L' : typeof value === 'string' ? 'S' : typeof value === 'number' ? 'N' : 'M';
    const values = {
      seenUpdatedAt: 'T0',
      completeBy: 1,
      dueShard: '0',
      entry: [{ Action: 'retry' }],
      now: 'T1',
    };
    expect(bindParams('operatorRetry', renderTransition('operatorRetry'), values, typeOf)).toMatchObject({
      ':entry': [{ Action: 'retry' }],
    });
    expect(() =>
      bindParams(
        'operatorRetry',
        renderTransition('operatorRetry'),
        { ...values, entry: { Action: 'retry' } },
        typeOf,
      ),
    ).toThrow("parameter 'entry' must be of type L, got M");
  });
});

describe('renderStateTransition fails clearly', () => {
  const base: StateTransition = {
    by: 'scheduler',
    summary: 'probe',
    params: { instanceId: 'S', now: 'S' },
    fence: { lockedBy: { param: 'instanceId' } },
    condition: [],
    set: [[[StateAttr.UpdatedAt], { param: 'now' }]],
    remove: [],
  };

  it('fails when a step transition is rendered without its step', () => {
    expect(() => renderTransition('markStepRunning')).toThrow(
      "State transition 'markStepRunning': it applies to a step; render it with the step name",
    );
  });

  it('fails when a transition of no step is rendered for a step', () => {
    expect(() => renderTransition('markProcessed', { step: 'ChargePayment' })).toThrow(
      "State transition 'markProcessed': it applies to no step, but was rendered for step 'ChargePayment'",
    );
  });

  it('fails when an operand names an undeclared parameter', () => {
    const broken: StateTransition = { ...base, set: [[[StateAttr.UpdatedAt], { param: 'later' }]] };
    expect(() => renderStateTransition('probe', broken)).toThrow(
      "State transition 'probe': parameter 'later' is used but not declared in params",
    );
  });

  it('fails when a declared parameter is never used', () => {
    const broken: StateTransition = { ...base, params: { ...base.params, spare: 'N' } };
    expect(() => renderStateTransition('probe', broken)).toThrow('declared parameters never used: spare');
  });

  it('fails when one placeholder would hold two constants', () => {
    const broken: StateTransition = {
      ...base,
      condition: [{ path: [StateAttr.Attempt], equals: { constant: 1, placeholder: 'limit' } }],
      set: [...base.set, [[StateAttr.FailureCount], { constant: 2, placeholder: 'limit' }]],
    };
    expect(() => renderStateTransition('probe', broken)).toThrow(':limit would hold both 1 and 2');
  });

  it('fails when a constant and a parameter share a placeholder', () => {
    const broken: StateTransition = {
      ...base,
      condition: [{ path: [StateAttr.ProcessState], equals: { constant: 'Now' } }],
    };
    expect(() => renderStateTransition('probe', broken)).toThrow(
      'placeholders used for both a constant and a parameter: :now',
    );
  });

  it('fails when a constant cannot name its own placeholder', () => {
    const broken: StateTransition = {
      ...base,
      condition: [{ path: [StateAttr.Attempt], equals: { constant: 0 } }],
    };
    expect(() => renderStateTransition('probe', broken)).toThrow('constant 0 needs a placeholder name');
  });

  it('fails when it sets nothing', () => {
    const broken: StateTransition = { ...base, params: { instanceId: 'S' }, set: [] };
    expect(() => renderStateTransition('probe', broken)).toThrow("State transition 'probe': it sets nothing");
  });

  it('fails when a map operand names an undeclared parameter', () => {
    const broken: StateTransition = {
      ...base,
      set: [...base.set, [[StateAttr.Plan], { placeholder: 'entry', map: { At: { param: 'later' } } }]],
    };
    expect(() => renderStateTransition('probe', broken)).toThrow(
      "State transition 'probe': parameter 'later' is used but not declared in params",
    );
  });

  it('fails when a map operand is empty or its placeholder is taken', () => {
    const empty: StateTransition = {
      ...base,
      set: [...base.set, [[StateAttr.Plan], { placeholder: 'entry', map: {} }]],
    };
    expect(() => renderStateTransition('probe', empty)).toThrow('map :entry is empty');
    const clash: StateTransition = {
      ...base,
      set: [...base.set, [[StateAttr.Plan], { placeholder: 'now', map: { At: { param: 'now' } } }]],
    };
    expect(() => renderStateTransition('probe', clash)).toThrow(
      'placeholders used for both a map and another value: :now',
    );
  });

  it('counts a parameter used only inside a map as used', () => {
    const inMap: StateTransition = {
      ...base,
      params: { ...base.params, seq: 'N' },
      set: [...base.set, [[StateAttr.Plan], { placeholder: 'entry', map: { Seq: { param: 'seq' } } }]],
    };
    expect(renderStateTransition('probe', inMap).maps).toEqual({
      ':entry': { Seq: { param: 'seq', type: 'N' } },
    });
  });

  it('renders exists conditions, and a compensation log path needs the step', () => {
    const logged: StateTransition = {
      ...base,
      condition: [{ path: [StateAttr.CompensationLog, THIS_STEP], exists: true }],
    };
    expect(() => renderStateTransition('probe', logged)).toThrow('it applies to a step');
    expect(renderStateTransition('probe', logged, { step: 'Pack' }).conditionExpression).toBe(
      '#lockedBy = :instanceId AND attribute_exists(#compensationLog.#step)',
    );
  });

  it('fails when an appended parameter is not declared a list', () => {
    const broken: StateTransition = {
      ...base,
      params: { ...base.params, entry: 'M' },
      set: [...base.set, [[StateAttr.OperatorLog], { appendList: { param: 'entry' } }]],
    };
    expect(() => renderStateTransition('probe', broken)).toThrow(
      "State transition 'probe': parameter 'entry' is appended to a list, so it must be declared 'L'",
    );
  });

  it('fails when an appending transition uses the empty list placeholder for something else', () => {
    const broken: StateTransition = {
      ...base,
      params: { ...base.params, entry: 'L', emptyList: 'S' },
      condition: [{ path: [StateAttr.ClientId], equals: { param: 'emptyList' } }],
      set: [...base.set, [[StateAttr.OperatorLog], { appendList: { param: 'entry' } }]],
    };
    expect(() => renderStateTransition('probe', broken)).toThrow(
      ':emptyList is reserved for the empty list an append starts from',
    );
  });

  it('renders no empty list for a transition that appends nothing', () => {
    expect(renderTransition('markProcessed')).not.toHaveProperty('emptyLists');
  });

  it('renders the step placeholder only from THIS_STEP', () => {
    const stepped: StateTransition = {
      ...base,
      set: [...base.set, [[StateAttr.Steps, THIS_STEP, StepAttr.Status], { constant: 'Running' }]],
    };
    expect(renderStateTransition('probe', stepped, { step: 'Pack' }).names).toMatchObject({
      '#step': 'Pack',
    });
  });
});

describe('bindParams', () => {
  const rendered = renderTransition('markProcessed');
  const typeOf = (value: unknown): ParamType | undefined =>
    typeof value === 'string' ? 'S' : typeof value === 'number' ? 'N' : undefined;

  it('binds each declared parameter to its placeholder', () => {
    expect(bindParams('markProcessed', rendered, { instanceId: 'o--attempt-1', now: 'T' }, typeOf)).toEqual({
      ':instanceId': 'o--attempt-1',
      ':now': 'T',
    });
  });

  it('fails naming every missing, unknown and mistyped parameter', () => {
    expect(() => bindParams('markProcessed', rendered, { instanceId: 7, extra: 'x' }, typeOf)).toThrow(
      "State transition 'markProcessed': parameter 'instanceId' must be of type S, got N; missing parameter 'now'; unknown parameter 'extra'",
    );
  });

  describe('map values', () => {
    const completed = renderTransition('markStepCompleted', { step: 'Pack' });
    const mapTypeOf = (value: unknown): ParamType | undefined =>
      typeof value === 'object' && value !== null ? 'M' : typeOf(value);
    const compose = {
      constant: (value: string | number | boolean) => ({ constant: value }) as unknown,
      map: (entries: Readonly<Record<string, unknown>>) => ({ composed: entries }) as unknown,
    };
    const values = {
      instanceId: 'o--attempt-1',
      now: 'T',
      result: { ConfirmationId: 'c-1' },
      seq: 2,
      compensation: 'Unpack',
      undoes: 'o:Pack',
      confirmationId: 'c-1',
    };

    it('composes each map from its constants and the bound parameters, with the caller’s composer', () => {
      expect(bindParams('markStepCompleted', completed, values, mapTypeOf, compose)).toEqual({
        ':instanceId': 'o--attempt-1',
        ':now': 'T',
        ':result': { ConfirmationId: 'c-1' },
        ':compensationEntry': {
          composed: {
            Seq: 2,
            Compensation: 'Unpack',
            Undoes: 'o:Pack',
            ConfirmationId: 'c-1',
            Status: { constant: 'Recorded' },
            RecordedAt: 'T',
          },
        },
      });
    });

    it('checks the parameters used inside maps like the others, and needs a composer', () => {
      expect(() =>
        bindParams(
          'markStepCompleted',
          completed,
          { ...values, seq: '2', undoes: undefined },
          mapTypeOf,
          compose,
        ),
      ).toThrow(
        "State transition 'markStepCompleted': parameter 'seq' must be of type N, got S; missing parameter 'undoes'",
      );
      expect(() => bindParams('markStepCompleted', completed, values, mapTypeOf)).toThrow(
        'map :compensationEntry needs a value composer',
      );
    });
  });
});
