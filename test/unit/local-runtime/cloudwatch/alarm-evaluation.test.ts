/**
 * The alarm evaluator against AWS's published tables ("How alarm state is evaluated when data is
 * missing", CloudWatch User Guide): each row, each TreatMissingData, as documented. In a row, the
 * evaluation range is oldest first: 0 a datapoint within the threshold, X a breaching one, - missing.
 */
import {
  type AlarmCriteria,
  type AlarmState,
  type Datapoint,
  evaluateAlarm,
  type TreatMissingData,
} from '../../../../lib/local-runtime/cloudwatch/alarm-evaluation';

const PERIOD = 10_000;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function range(row: string): Datapoint[] {
  return row.split(' ').map((mark, index) => {
    const timestamp = T0 + index * PERIOD;
    if (mark === '-') return { timestamp };
    return { timestamp, value: mark === 'X' ? 5 : 0 };
  });
}

const criteria = (n: number, m: number, treat: TreatMissingData): AlarmCriteria => ({
  evaluationPeriods: n,
  datapointsToAlarm: m,
  threshold: 1,
  comparisonOperator: 'GreaterThanOrEqualToThreshold',
  treatMissingData: treat,
});

const RETAIN = 'retain';
type Expected = AlarmState | typeof RETAIN;
const TREATMENTS: readonly TreatMissingData[] = ['missing', 'ignore', 'breaching', 'notBreaching'];

/** Columns: MISSING, IGNORE, BREACHING, NOT BREACHING. */
const THREE_OF_THREE: ReadonlyArray<readonly [string, readonly Expected[]]> = [
  ['0 - X - X', ['OK', 'OK', 'OK', 'OK']],
  ['0 - - - -', ['OK', 'OK', 'OK', 'OK']],
  ['- - - - -', ['INSUFFICIENT_DATA', RETAIN, 'ALARM', 'OK']],
  ['0 X X - X', ['ALARM', 'ALARM', 'ALARM', 'ALARM']],
  ['- - - - X', ['INSUFFICIENT_DATA', RETAIN, 'ALARM', 'OK']],
  ['X - - - -', ['ALARM', RETAIN, 'ALARM', 'OK']],
];

const TWO_OF_THREE: ReadonlyArray<readonly [string, readonly Expected[]]> = [
  ['0 - X - X', ['ALARM', 'ALARM', 'ALARM', 'ALARM']],
  ['0 0 X 0 X', ['ALARM', 'ALARM', 'ALARM', 'ALARM']],
  ['0 - X - -', ['OK', 'OK', 'ALARM', 'OK']],
  ['- - - - 0', ['OK', 'OK', 'ALARM', 'OK']],
  ['- - - - X', ['INSUFFICIENT_DATA', RETAIN, 'ALARM', 'OK']],
];

const cases = (m: number, table: typeof THREE_OF_THREE) =>
  table.flatMap(([row, expected]) =>
    TREATMENTS.map((treat, column) => [row, treat, expected[column] as Expected, m] as const),
  );

describe('alarm evaluation (AWS tables of missing data handling)', () => {
  it.each(cases(3, THREE_OF_THREE))('3 of 3: %s with %s -> %s', (row, treat, expected, m) => {
    for (const current of ['OK', 'ALARM', 'INSUFFICIENT_DATA'] as const) {
      const { state } = evaluateAlarm(criteria(3, m, treat), range(row), current);
      expect(state).toBe(expected === RETAIN ? current : expected);
    }
  });

  it.each(cases(2, TWO_OF_THREE))('2 of 3: %s with %s -> %s', (row, treat, expected, m) => {
    for (const current of ['OK', 'ALARM', 'INSUFFICIENT_DATA'] as const) {
      const { state } = evaluateAlarm(criteria(3, m, treat), range(row), current);
      expect(state).toBe(expected === RETAIN ? current : expected);
    }
  });
});

describe('alarm evaluation', () => {
  it('evaluates the most recent N real datapoints when there are enough, and says which', () => {
    const evaluation = evaluateAlarm(criteria(3, 3, 'breaching'), range('X 0 X X X'), 'OK');
    expect(evaluation.state).toBe('ALARM');
    expect(evaluation.evaluated.map((point) => point.value)).toEqual([5, 5, 5]);
    expect(evaluation.reason).toBe(
      'Threshold Crossed: 3 out of the last 3 datapoints [5.0 (01/01/26 12:00:40), 5.0 (01/01/26 12:00:30), ' +
        '5.0 (01/01/26 12:00:20)] were greater than or equal to the threshold (1.0) ' +
        '(minimum 3 datapoints for OK -> ALARM transition).',
    );
  });

  it('M of N: the breaching datapoints need not be consecutive', () => {
    expect(evaluateAlarm(criteria(4, 2, 'missing'), range('0 X 0 0 X'), 'OK').state).toBe('ALARM');
    expect(evaluateAlarm(criteria(4, 3, 'missing'), range('0 X 0 0 X'), 'ALARM').state).toBe('OK');
  });

  it('compares with each operator as its name says', () => {
    const at = (value: number) => [{ timestamp: T0, value }];
    const alarm = (operator: AlarmCriteria['comparisonOperator'], value: number) =>
      evaluateAlarm({ ...criteria(1, 1, 'missing'), comparisonOperator: operator }, at(value), 'OK').state;
    expect([alarm('GreaterThanOrEqualToThreshold', 1), alarm('GreaterThanOrEqualToThreshold', 0.5)]).toEqual([
      'ALARM',
      'OK',
    ]);
    expect([alarm('GreaterThanThreshold', 1), alarm('GreaterThanThreshold', 1.5)]).toEqual(['OK', 'ALARM']);
    expect([alarm('LessThanThreshold', 1), alarm('LessThanThreshold', 0.5)]).toEqual(['OK', 'ALARM']);
    expect([alarm('LessThanOrEqualToThreshold', 1), alarm('LessThanOrEqualToThreshold', 2)]).toEqual([
      'ALARM',
      'OK',
    ]);
  });

  it('names the missing datapoints it treated as breaching', () => {
    expect(evaluateAlarm(criteria(3, 3, 'breaching'), range('- - - - -'), 'OK').reason).toBe(
      'Threshold Crossed: no datapoints were received for 3 periods and 3 missing datapoints were treated as [Breaching].',
    );
  });
});
