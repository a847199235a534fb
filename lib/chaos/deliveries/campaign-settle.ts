/**
 * The delivery campaign's last wait, once every delivery is terminal (or its wait ran out): until
 * every dead letter a consumer sent carries remediation's marker and every lifecycle event a
 * Delivery record counts has reached the observer, or SETTLE_MAX_MILLIS. What is still missing
 * then is named by the checker. Waited on the harness's pace (../common/loop.ts).
 */
import type { DeliverySystemDriver } from '../../harness/deliveries-driver';
import type { ObservedEvent } from '../../harness/deliveries-snapshots';
import { MACHINE_PACE, type Pace } from '../common/loop';
import type { DeliveryFaultInjector } from './injector';

/** After the last delivery is terminal: remediation's last decisions and the last bus events. */
const SETTLE_MAX_MILLIS = 30_000;

/** Drains the observer into `observed` until everything sent has arrived, or the wait runs out. */
export async function settleDeliveries(
  driver: DeliverySystemDriver,
  injector: DeliveryFaultInjector,
  observed: ObservedEvent[],
  pace: Pace = MACHINE_PACE,
): Promise<void> {
  const until = pace.now() + SETTLE_MAX_MILLIS;
  while (pace.now() < until) {
    observed.push(...(await driver.drainObserved()));
    const marked = new Set((await driver.remediation()).markers.map((marker) => marker.key));
    const seen = new Set(observed.map((event) => `${event.deliveryId}#${event.sequence}`));
    const items = await driver.deliveryItems();
    const eventsIn = items.every((item) =>
      Array.from({ length: item.sequence }, (_, index) => `${item.deliveryId}#${index + 1}`).every((key) =>
        seen.has(key),
      ),
    );
    if (eventsIn && injector.deadLetters.every((sent) => marked.has(sent.key))) return;
    await pace.sleep(1_000);
  }
}
