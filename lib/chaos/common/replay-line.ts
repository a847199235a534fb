/**
 * The line a campaign's command prints after its summary (npm run chaos, chaos:deliveries): the
 * command that replays a traced run, or, without a trace, how to get a run that does. One wording
 * for both campaigns; what is measured of their replays is in lib/chaos/README.md (Replay), the one
 * home of those figures.
 */
export function replayLine(script: string, argv: readonly string[], traced: boolean): string {
  const command = `npm run ${script} -- ${argv.join(' ')}`.trimEnd();
  return traced
    ? `replay (the same trace on this commit: lib/chaos/README.md, Replay): ${command}`
    : `not replayable (no --trace): ${command} --trace FILE runs on a seeded clock (lib/chaos/README.md, Replay)`;
}
