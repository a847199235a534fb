/**
 * The line a campaign's command prints after its summary (npm run chaos, chaos:deliveries): the
 * command that replays a traced run, naming the enabled kinds that do not replay yet, or, without
 * a trace, how to get a run that does. One wording for both campaigns; how often a traced run
 * replays is measured in lib/chaos/README.md (Replay), the one home of that figure.
 */
export interface ReplayLineInput {
  /** The npm script, e.g. `chaos` or `chaos:deliveries`. */
  readonly script: string;
  /** The command's arguments as given. */
  readonly argv: readonly string[];
  /** Whether the run took `--trace`. */
  readonly traced: boolean;
  /** The kinds the run had on. */
  readonly enabledKinds: readonly string[];
  /** The campaign's kinds that do not replay yet. */
  readonly notReplayed: readonly string[];
}

export function replayLine({ script, argv, traced, enabledKinds, notReplayed }: ReplayLineInput): string {
  const command = `npm run ${script} -- ${argv.join(' ')}`.trimEnd();
  if (!traced) {
    return `not replayable (no --trace): ${command} --trace FILE runs on a seeded clock (lib/chaos/README.md, Replay)`;
  }
  const unreplayed = enabledKinds.filter((kind) => notReplayed.includes(kind));
  return unreplayed.length === 0
    ? `replay (the same trace on this commit: lib/chaos/README.md, Replay): ${command}`
    : `replay on this commit (not the same trace with ${unreplayed.join(' or ')}, not replayed yet: lib/chaos/README.md, Replay): ${command}`;
}
