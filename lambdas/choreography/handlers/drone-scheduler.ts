/**
 * Drone Scheduler (drone queue, FIFO): DeliveryRequested and the remediation decisions that concern
 * drones. Composition only: the rules are domain/drone-scheduler.ts, the consumer mechanics the kit's.
 * Each event reads the fleet's DRONE# items afresh (a lost race re-reads them too).
 */

import { asReaction, stateOf } from '../adapters/decisions';
import { assignmentKeyOf, DynamoDroneFleet } from '../adapters/drone-fleet';
import { DeliveryMetric, DroneSchedulerSettingsSchema, ServiceName } from '../contracts';
import {
  type AssignmentState,
  reactToDroneEvent,
  SCHEDULER_CONSUMED_TYPES,
  type SchedulerConsumedType,
} from '../domain/drone-scheduler';
import type { ConsumerDefinition } from '../kit';
import { consumerHandler } from '../kit';

export const handler = consumerHandler(
  DroneSchedulerSettingsSchema,
  (kit): ConsumerDefinition<SchedulerConsumedType> => {
    const fleet = new DynamoDroneFleet(kit.documentClient, kit.store.tableName);
    const { settings } = kit;
    return {
      service: ServiceName.DroneScheduler,
      accepts: SCHEDULER_CONSUMED_TYPES,
      itemKeyOf: (event) => assignmentKeyOf(event.deliveryId),
      react: async (current, event, now) => {
        const decision = reactToDroneEvent({
          assignment: stateOf<AssignmentState>(current),
          drones: await fleet.read(settings.drones),
          event,
          now,
          settings,
        });
        return asReaction(decision, ({ assignment, drone }) => ({
          state: { ...assignment },
          ...(drone ? { extraWrites: [fleet.writeOf(drone)] } : {}),
        }));
      },
      onConflict: (conflict) => {
        // The extra write is the DRONE# item: another delivery booked (or released) the drone first.
        if (conflict.extraWriteIndex !== undefined)
          kit.observability.count(DeliveryMetric.DroneAssignmentConflicts);
      },
    };
  },
);
