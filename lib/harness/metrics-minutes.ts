/**
 * The `--minutes N` of both CLIs' `metrics` command (npm run orders / deliveries -- metrics): how
 * far back the figures reach, one parser so both accept and refuse the same text with the same
 * message.
 */

/** The window in minutes: a whole number >= 1; 60 when the option is not given. */
export function metricsMinutes(text: string | undefined): number {
  if (text === undefined) return 60;
  if (!/^[1-9][0-9]*$/.test(text)) {
    throw new Error(`--minutes must be a whole number of minutes >= 1; got '${text}'`);
  }
  return Number(text);
}
