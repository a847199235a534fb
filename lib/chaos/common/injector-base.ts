/**
 * What every campaign's fault injector shares: the log of firings (with the campaign's own faults,
 * e.g. a restart, recorded alongside), and replies held back on timers that the campaign cancels
 * when it stops the runtime or finishes.
 */
export abstract class InjectorBase<Kind extends string, Event extends { readonly kind: Kind }> {
  readonly events: Event[] = [];
  private readonly pendingTimers = new Set<NodeJS.Timeout>();

  protected constructor(
    private readonly eventOf: (kind: Kind, at: number, ids: readonly string[]) => Event,
    protected readonly now: () => number,
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
    for (const timer of this.pendingTimers) clearTimeout(timer);
    this.pendingTimers.clear();
  }

  protected hold(millis: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pendingTimers.delete(timer);
        resolve();
      }, millis);
      this.pendingTimers.add(timer);
    });
  }
}
