/**
 * The fleet's pace: a drone stays booked for its whole window (assignmentMillis) however short the
 * flight, so the campaign submits deliveries no faster than the fleet frees drones; only the
 * planned bursts ask for one drone more than there are. Faster, every happy delivery past the
 * fleet's capacity would walk NO_DRONE_AVAILABLE to Failed and the run would say little.
 * The window is read on the harness's pace (the run's clock when it is seeded, ../common/loop.ts).
 */
import { MACHINE_PACE, type Pace } from '../common/loop';

/** Between a submission and its booking (the request's way to the drone scheduler), and a margin. */
const FLEET_PACE_SLACK_MILLIS = 3_000;

export class FleetPace {
  private readonly booked: number[] = [];

  constructor(
    private readonly drones: number,
    private readonly assignmentMillis: number,
    private readonly pace: Pace = MACHINE_PACE,
  ) {}

  /** Drones not booked by a submission of the last window. */
  free(): number {
    const since = this.pace.now() - this.assignmentMillis - FLEET_PACE_SLACK_MILLIS;
    return this.drones - this.booked.filter((at) => at > since).length;
  }

  /** Whether a group wanting this many drones may go now (a burst may ask for the whole fleet). */
  allows(wanted: number): boolean {
    return wanted === 0 || this.free() >= Math.min(wanted, this.drones);
  }

  book(count: number): void {
    for (let index = 0; index < count; index += 1) this.booked.push(this.pace.now());
  }
}
