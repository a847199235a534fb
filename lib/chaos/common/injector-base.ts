/**
 * What every campaign's fault injector shares: the log of firings (with the campaign's own faults,
 * e.g. a restart, recorded alongside), and replies held back on the runtime's clock, which the
 * campaign cancels when it stops the runtime or finishes. On a virtual clock a held reply parks the
 * request it holds, so the clock moves on to the caller's deadline as the wall clock would.
 */
import { type RuntimeClock, WallClock } from '../../local-runtime';

export abstract class InjectorBase<Kind extends string, Event extends { readonly kind: Kind }> {
  readonly events: Event[] = [];
  private cancelling = new AbortController();

  protected constructor(
    private readonly eventOf: (kind: Kind, at: number, ids: readonly string[]) => Event,
    protected readonly now: () => number,
    private readonly clock: RuntimeClock = new WallClock(),
  ) {}

  /** Records one firing that hit these ids (a fault the campaign performs itself too). */
  record(kind: Kind, ids: readonly string[] = []): void {
    this.events.push(this.eventOf(kind, this.now(), ids));
  }

  firedCount(kind: Kind): number {
    return this.events.filter((event) => event.kind === kind).length;
  }

  /** Cancels held replies still waiting (the campaign is over or the runtime is going down). */
  cancelHeldReplies(): void {
    this.cancelling.abort();
    this.cancelling = new AbortController();
  }

  /** Resolves after `millis` on the runtime's clock; never, once cancelled (no reply is sent). */
  protected hold(millis: number): Promise<void> {
    const { signal } = this.cancelling;
    return new Promise((resolve) => {
      void this.clock.sleep(millis, signal).then(() => {
        if (!signal.aborted) resolve();
      });
    });
  }
}
