/**
 * The deliveries models to check, generated from the choreography's code within `bounds`: the drone
 * scheduler's booking. (The Delivery service's state model is issue 25's next step: DESIGN.md
 * "Model-checked" says what is and is not proven.)
 */
import type { SpinModel } from '../spin';
import { bookingModel } from './booking-model';
import { DEFAULT_DELIVERIES_BOUNDS, type DeliveriesBounds } from './bounds';

export function deliveriesModels(bounds: DeliveriesBounds = DEFAULT_DELIVERIES_BOUNDS): SpinModel[] {
  return [bookingModel(bounds)];
}
