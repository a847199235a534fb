import {
  AWS_DEFAULT_TASK_TIMEOUT_SECONDS,
  InvalidDefinitionError,
  MAX_TIMER_SECONDS,
  prepareDefinition,
} from '../../../../lib/local-runtime/stepfunctions/definition';

const callback = {
  Type: 'Task',
  Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
  Parameters: { QueueUrl: 'q', MessageBody: { 'taskToken.$': '$$.Task.Token' } },
  End: true,
};

function problemsOf(definition: object): readonly string[] {
  try {
    prepareDefinition('m', JSON.stringify(definition));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidDefinitionError);
    return (error as InvalidDefinitionError).problems;
  }
  throw new Error('expected the definition to be refused');
}

describe('prepareDefinition', () => {
  it('gives every Task an explicit engine timeout: declared, or the AWS default capped to a Node timer', () => {
    const prepared = prepareDefinition(
      'm',
      JSON.stringify({
        StartAt: 'A',
        TimeoutSeconds: 30,
        States: {
          A: { ...callback, TimeoutSeconds: 6, HeartbeatSeconds: 3, End: undefined, Next: 'B' },
          B: { Type: 'Task', Resource: 'arn:aws:states:::dynamodb:getItem', Parameters: {}, End: true },
        },
      }),
    );
    const states = prepared.engineDefinition.States as Record<string, Record<string, unknown>>;
    expect(states.A).toMatchObject({ TimeoutSeconds: 6 });
    expect(states.A).not.toHaveProperty('HeartbeatSeconds');
    expect(states.B).toMatchObject({ TimeoutSeconds: MAX_TIMER_SECONDS });
    expect(prepared.engineDefinition).not.toHaveProperty('TimeoutSeconds');
    expect(prepared.executionTimeoutSeconds).toBe(30);
    expect(prepared.tasks.get('A')).toMatchObject({
      timeoutSeconds: 6,
      effectiveTimeoutSeconds: 6,
      heartbeatSeconds: 3,
    });
    expect(prepared.tasks.get('B')).toMatchObject({
      timeoutSeconds: AWS_DEFAULT_TASK_TIMEOUT_SECONDS,
      effectiveTimeoutSeconds: MAX_TIMER_SECONDS,
    });
    expect(prepared.tasks.get('B')).not.toHaveProperty('heartbeatSeconds');
  });

  it('finds Tasks inside Parallel branches and Map processors', () => {
    const prepared = prepareDefinition(
      'm',
      JSON.stringify({
        StartAt: 'P',
        States: {
          P: {
            Type: 'Parallel',
            Branches: [{ StartAt: 'InBranch', States: { InBranch: callback } }],
            Next: 'M',
          },
          M: {
            Type: 'Map',
            ItemProcessor: { StartAt: 'InMap', States: { InMap: { ...callback } } },
            End: true,
          },
        },
      }),
    );
    expect([...prepared.tasks.keys()].sort()).toEqual(['InBranch', 'InMap']);
  });

  it('refuses JSONata, at the top level or on a state', () => {
    expect(
      problemsOf({ QueryLanguage: 'JSONata', StartAt: 'A', States: { A: { Type: 'Succeed' } } }),
    ).toEqual([expect.stringContaining("QueryLanguage 'JSONata'")]);
    expect(
      problemsOf({ StartAt: 'A', States: { A: { Type: 'Succeed', QueryLanguage: 'JSONata' } } }),
    ).toEqual([expect.stringContaining("state 'A' sets QueryLanguage 'JSONata'")]);
  });

  it.each(['Assign', 'Arguments', 'Output'])('refuses the JSONata/variables field %s', (field) => {
    const problems = problemsOf({ StartAt: 'A', States: { A: { Type: 'Pass', [field]: {}, End: true } } });
    expect(problems).toEqual([expect.stringContaining(`state 'A' uses '${field}'`)]);
  });

  it('refuses TimeoutSecondsPath and HeartbeatSecondsPath rather than ignore them', () => {
    const problems = problemsOf({
      StartAt: 'A',
      States: { A: { ...callback, TimeoutSecondsPath: '$.t', HeartbeatSecondsPath: '$.h' } },
    });
    expect(problems).toEqual([
      expect.stringContaining('TimeoutSecondsPath'),
      expect.stringContaining('HeartbeatSecondsPath'),
    ]);
  });

  it('refuses HeartbeatSeconds not below TimeoutSeconds, and non-integer timeouts', () => {
    expect(
      problemsOf({ StartAt: 'A', States: { A: { ...callback, TimeoutSeconds: 5, HeartbeatSeconds: 5 } } }),
    ).toEqual([expect.stringContaining('HeartbeatSeconds 5, which must be below TimeoutSeconds 5')]);
    expect(problemsOf({ StartAt: 'A', States: { A: { ...callback, TimeoutSeconds: 0.5 } } })).toEqual([
      expect.stringContaining('TimeoutSeconds 0.5'),
    ]);
  });

  it('refuses a .waitForTaskToken task that never passes the token', () => {
    const problems = problemsOf({
      StartAt: 'A',
      States: { A: { ...callback, Parameters: { QueueUrl: 'q', MessageBody: 'no token' } } },
    });
    expect(problems).toEqual([expect.stringContaining('never pass $$.Task.Token')]);
  });

  it('refuses a state name used twice across nested machines', () => {
    const problems = problemsOf({
      StartAt: 'P',
      States: {
        P: { Type: 'Parallel', Branches: [{ StartAt: 'P', States: { P: { Type: 'Succeed' } } }], End: true },
      },
    });
    expect(problems).toEqual([expect.stringContaining("state name 'P' is used twice")]);
  });

  it('accepts an unsupported resource with a warning naming the state and resource', () => {
    const prepared = prepareDefinition(
      'm',
      JSON.stringify({
        StartAt: 'A',
        States: { A: { Type: 'Task', Resource: 'arn:aws:states:::glue:startJobRun.sync', End: true } },
      }),
    );
    expect(prepared.warnings).toEqual([
      expect.stringMatching(/state 'A': Resource 'arn:aws:states:::glue:startJobRun.sync'/),
    ]);
  });

  it('names the state machine and every problem in the error message', () => {
    expect(() => prepareDefinition('Scheduler', '{not json')).toThrow(
      /State machine 'Scheduler' cannot run locally/,
    );
    expect(() => prepareDefinition('Scheduler', '[]')).toThrow(/must be a JSON object/);
    expect(() => prepareDefinition('Scheduler', '{}')).toThrow(/no StartAt string[\s\S]*no States object/);
  });
});
