/**
 * The app's REST APIs in the order they take the local runtime's ports (LocalRuntimeOptions
 * .apiPortOrder): the orders API on the base port (3000 for `npm start`), the delivery API on the
 * next (3001), as the README promises. The composition (compose.ts) adds DroneDelivery first, for
 * the console's sake (SchedulerAgentSupervisor reads the delivery API's exports), so the
 * assembly's order of stacks is not the order clients know the APIs by; this is. Kept apart from
 * compose.ts so npm start, the acceptance setup and the tests read it without loading the CDK (the
 * stack names are checked against the stacks' own constants by type-only imports), and outside the
 * runtime, which knows no app.
 */
import type { DRONE_DELIVERY_STACK_NAME } from '../lib/choreography/stack';
import type { STACK_NAME } from '../lib/scheduler-agent-supervisor/stack';

export const APP_API_PORT_ORDER: readonly [typeof STACK_NAME, typeof DRONE_DELIVERY_STACK_NAME] = [
  'SchedulerAgentSupervisor',
  'DroneDelivery',
];
