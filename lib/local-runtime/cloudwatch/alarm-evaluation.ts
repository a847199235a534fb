/**
 * One evaluation of a single-metric alarm, as CloudWatch documents it ("Evaluating an alarm",
 * "Configuring how CloudWatch alarms treat missing data"): a pure function of the datapoints of
 * the evaluation range, so every case is testable without a clock.
 *
 * - The evaluation range is a few more periods than EvaluationPeriods (N): CloudWatch fetches more
 *   than N datapoints so that real data is preferred to filling in missing data.
 * - At least N real datapoints in the range: the most recent N real ones are evaluated, whatever
 *   TreatMissingData says.
 * - Fewer: every real datapoint in the range is evaluated, and the rest of N is missing data,
 *   filled as TreatMissingData says (used "as few times as possible"):
 *     breaching     missing datapoints breach;
 *     notBreaching  missing datapoints do not breach;
 *     missing       missing datapoints are unknown: ALARM when the real ones reach
 *                   DatapointsToAlarm (M), OK when some real one does not breach, otherwise
 *                   INSUFFICIENT_DATA, except that a range whose oldest datapoint breaches and
 *                   holds no non-breaching one is ALARM (AWS's published example "X - - - -");
 *     ignore        as missing, but where missing would answer INSUFFICIENT_DATA the state stays.
 *   No real datapoint at all: missing -> INSUFFICIENT_DATA, ignore -> current state,
 *   breaching -> ALARM, notBreaching -> OK.
 * - ALARM when at least M of the evaluated N datapoints breach, else OK.
 *
 * This reproduces every row of AWS's two published tables (test/unit/local-runtime/cloudwatch).
 */

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
export const ALARM_STATES: readonly AlarmState[] = ['OK', 'ALARM', 'INSUFFICIENT_DATA'];

export type TreatMissingData = 'missing' | 'notBreaching' | 'breaching' | 'ignore';
export const TREAT_MISSING_DATA: readonly TreatMissingData[] = [
  'missing',
  'notBreaching',
  'breaching',
  'ignore',
];

/** The static-threshold operators (the band operators belong to anomaly detection). */
export type ComparisonOperator =
  | 'GreaterThanOrEqualToThreshold'
  | 'GreaterThanThreshold'
  | 'LessThanThreshold'
  | 'LessThanOrEqualToThreshold';
export const COMPARISON_OPERATORS: readonly ComparisonOperator[] = [
  'GreaterThanOrEqualToThreshold',
  'GreaterThanThreshold',
  'LessThanThreshold',
  'LessThanOrEqualToThreshold',
];

/** How many periods beyond EvaluationPeriods the range reaches back (AWS's tables: N = 3, range 5). */
export const EXTRA_RANGE_PERIODS = 2;

export interface Datapoint {
  /** Start of the period (epoch millis). */
  readonly timestamp: number;
  /** The period's statistic; undefined when the period has no data. */
  readonly value?: number;
}

export interface AlarmCriteria {
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  readonly threshold: number;
  readonly comparisonOperator: ComparisonOperator;
  readonly treatMissingData: TreatMissingData;
}

export interface Evaluation {
  readonly state: AlarmState;
  /** Human-readable, in the style of CloudWatch's StateReason. */
  readonly reason: string;
  /** The real datapoints the decision used (most recent last). */
  readonly evaluated: readonly Datapoint[];
}

const OPERATOR_TEXT: Readonly<Record<ComparisonOperator, string>> = {
  GreaterThanOrEqualToThreshold: 'greater than or equal to',
  GreaterThanThreshold: 'greater than',
  LessThanThreshold: 'less than',
  LessThanOrEqualToThreshold: 'less than or equal to',
};

export function breaches(
  value: number,
  criteria: Pick<AlarmCriteria, 'threshold' | 'comparisonOperator'>,
): boolean {
  const { threshold } = criteria;
  switch (criteria.comparisonOperator) {
    case 'GreaterThanOrEqualToThreshold':
      return value >= threshold;
    case 'GreaterThanThreshold':
      return value > threshold;
    case 'LessThanThreshold':
      return value < threshold;
    case 'LessThanOrEqualToThreshold':
      return value <= threshold;
  }
}

/**
 * Evaluates `range` (the evaluation range, oldest first, one entry per period, missing periods
 * without a value) for an alarm now in `current`.
 */
export function evaluateAlarm(
  criteria: AlarmCriteria,
  range: readonly Datapoint[],
  current: AlarmState,
): Evaluation {
  const { evaluationPeriods: n, datapointsToAlarm: m, treatMissingData: treat } = criteria;
  const real = range.filter((point) => point.value !== undefined);
  const breaching = (point: Datapoint) => breaches(point.value as number, criteria);
  const decided = (state: AlarmState, evaluated: readonly Datapoint[], filled = 0, filledAs = '') => ({
    state,
    evaluated,
    reason: thresholdReason(criteria, state, evaluated, filled, filledAs),
  });

  if (real.length >= n) {
    const evaluated = real.slice(-n);
    return decided(evaluated.filter(breaching).length >= m ? 'ALARM' : 'OK', evaluated);
  }
  const filled = n - real.length;
  const realBreaching = real.filter(breaching).length;
  switch (treat) {
    case 'breaching':
      return decided(realBreaching + filled >= m ? 'ALARM' : 'OK', real, filled, 'Breaching');
    case 'notBreaching':
      return decided(realBreaching >= m ? 'ALARM' : 'OK', real, filled, 'NonBreaching');
    case 'missing':
    case 'ignore': {
      if (real.length > 0 && realBreaching >= m) return decided('ALARM', real);
      if (real.length > realBreaching) return decided('OK', real);
      const oldest = range[0];
      if (treat === 'missing' && oldest?.value !== undefined && breaching(oldest))
        return decided('ALARM', real);
      if (treat === 'ignore') {
        return {
          state: current,
          evaluated: real,
          reason: `Insufficient data (${filled} of ${n} datapoints missing): the state is kept (TreatMissingData ignore)`,
        };
      }
      return {
        state: 'INSUFFICIENT_DATA',
        evaluated: real,
        reason:
          real.length === 0
            ? `Insufficient Data: no datapoints were received for ${range.length} periods`
            : `Insufficient Data: ${filled} datapoint${filled === 1 ? ' was' : 's were'} unknown.`,
      };
    }
  }
}

function formatValue(value: number): string {
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/** CloudWatch's datapoint time format in reasons: dd/MM/yy HH:mm:ss (UTC). */
function formatTime(epochMillis: number): string {
  const date = new Date(epochMillis);
  const two = (value: number) => String(value).padStart(2, '0');
  return (
    `${two(date.getUTCDate())}/${two(date.getUTCMonth() + 1)}/${two(date.getUTCFullYear() % 100)} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`
  );
}

function thresholdReason(
  criteria: AlarmCriteria,
  state: AlarmState,
  evaluated: readonly Datapoint[],
  filled: number,
  filledAs: string,
): string {
  const { evaluationPeriods: n, datapointsToAlarm: m, threshold } = criteria;
  const operator = OPERATOR_TEXT[criteria.comparisonOperator];
  const listed = [...evaluated]
    .reverse()
    .map((point) => `${formatValue(point.value as number)} (${formatTime(point.timestamp)})`)
    .join(', ');
  const breachingCount = evaluated.filter((point) => breaches(point.value as number, criteria)).length;
  const counted = state === 'ALARM' ? breachingCount : evaluated.length - breachingCount;
  const verb = counted === 1 ? 'was' : 'were';
  const comparison = state === 'ALARM' ? operator : `not ${operator}`;
  const minimum = state === 'ALARM' ? m : n - m + 1;
  const transition = state === 'ALARM' ? 'OK -> ALARM' : 'ALARM -> OK';
  const missingNote =
    filled > 0 && filledAs !== ''
      ? ` and ${filled} missing datapoint${filled === 1 ? ' was' : 's were'} treated as [${filledAs}]`
      : '';
  if (evaluated.length === 0) {
    return `Threshold Crossed: no datapoints were received for ${n} periods${missingNote}.`;
  }
  return (
    `Threshold Crossed: ${counted} out of the last ${evaluated.length} datapoints [${listed}] ${verb} ${comparison} ` +
    `the threshold (${formatValue(threshold)})${missingNote} (minimum ${minimum} datapoint${minimum === 1 ? '' : 's'} ` +
    `for ${transition} transition).`
  );
}
