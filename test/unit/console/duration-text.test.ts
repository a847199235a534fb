/** How the charts say a length of time (console/src/duration-text.ts): seconds to a tenth, then minutes. */
import { durationText } from '../../../console/src/duration-text';

describe('durationText', () => {
  it('says seconds to a tenth up to a minute and a half', () => {
    expect(durationText(0)).toBe('0 s');
    expect(durationText(6000)).toBe('6 s');
    expect(durationText(1234)).toBe('1.2 s');
    expect(durationText(89_999)).toBe('90 s');
  });

  it('says minutes to a tenth from a minute and a half on', () => {
    expect(durationText(90_000)).toBe('1.5 min');
    expect(durationText(279_500)).toBe('4.7 min');
    expect(durationText(3_600_000)).toBe('60 min');
  });
});
