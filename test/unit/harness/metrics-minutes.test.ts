/** The one `--minutes` parser of both CLIs' `metrics` command. */
import { metricsMinutes } from '../../../lib/harness/metrics-minutes';

describe('metricsMinutes', () => {
  it('is 60 when not given, else the whole number given', () => {
    expect(metricsMinutes(undefined)).toBe(60);
    expect(metricsMinutes('15')).toBe(15);
  });

  it.each(['0', '1.5', '-3', '', 'ten', '1e3', ' 5'])(
    'refuses %p, naming the option and the text',
    (text) => {
      expect(() => metricsMinutes(text)).toThrow(
        `--minutes must be a whole number of minutes >= 1; got '${text}'`,
      );
    },
  );
});
