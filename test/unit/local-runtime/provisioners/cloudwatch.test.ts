/**
 * The SQS sampler's instants: the alarms' evaluation instants, so an idle virtual clock jumps once
 * for both.
 */
import { ALARM_SETTLE_MILLIS } from '../../../../lib/local-runtime/cloudwatch/alarms';
import { SQS_SAMPLE_MILLIS, untilNextSample } from '../../../../lib/local-runtime/provisioners/cloudwatch';

describe('untilNextSample', () => {
  const periodEnd = 1_796_000_000_000; // a multiple of 10 s and of SQS_SAMPLE_MILLIS

  it('samples at the instant an alarm of a 10 s (or any multiple of the sample) period is evaluated', () => {
    const evaluation = periodEnd + ALARM_SETTLE_MILLIS;
    expect(periodEnd + untilNextSample(periodEnd)).toBe(evaluation);
    expect(evaluation - 1 + untilNextSample(evaluation - 1)).toBe(evaluation);
    expect(periodEnd - 3_999 + untilNextSample(periodEnd - 3_999)).toBe(evaluation);
  });

  it('waits a whole sample from a sample instant, and never 0 nor more than one sample', () => {
    const evaluation = periodEnd + ALARM_SETTLE_MILLIS;
    expect(untilNextSample(evaluation)).toBe(SQS_SAMPLE_MILLIS);
    for (let now = periodEnd; now < periodEnd + 2 * SQS_SAMPLE_MILLIS; now += 137) {
      const wait = untilNextSample(now);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(SQS_SAMPLE_MILLIS);
      expect((now + wait - ALARM_SETTLE_MILLIS) % SQS_SAMPLE_MILLIS).toBe(0);
    }
  });
});
