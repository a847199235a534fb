/**
 * The broken variants (issue 25): each is the code's protocol with one guard taken out of its data,
 * and the verifier must find a counterexample for each. A variant that passed would mean the model
 * cannot see that guard, so its check would prove nothing: the tests assert every variant fails,
 * and print its trail.
 */
import {
  DEFAULT_LIVE_WORKFLOW_VERSIONS,
  StateAttr,
  workflowShape,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { SpinModel } from '../spin';
import type { OrdersBounds } from './orders-bounds';
import { ordersModel } from './orders-model';
import { ORDERS_PROTOCOL, type OrdersProtocol } from './orders-protocol';
import type { ModelTransition } from './transition-inline';

export interface BrokenVariant {
  readonly name: string;
  /** The guard removed, and what it protects. */
  readonly description: string;
  readonly model: SpinModel;
}

type Transitions = Readonly<Record<string, ModelTransition>>;

function withTransitions(change: (transitions: Transitions) => Transitions): OrdersProtocol {
  return { ...ORDERS_PROTOCOL, transitions: change(ORDERS_PROTOCOL.transitions) };
}

function replaced(
  transitions: Transitions,
  names: readonly string[],
  edit: (transition: ModelTransition) => ModelTransition,
): Transitions {
  const result: Record<string, ModelTransition> = { ...transitions };
  for (const name of names) {
    const transition = transitions[name];
    if (transition === undefined) throw new Error(`No transition '${name}' to break`);
    result[name] = edit(transition);
  }
  return result;
}

const isCompleteBy = (condition: ModelTransition['condition'][number]) =>
  'path' in condition && condition.path.length === 1 && condition.path[0] === StateAttr.CompleteBy;

/** A transition without its lock fence: it lands whoever holds the lock. */
function unfenced({ fence: _fence, ...transition }: ModelTransition): ModelTransition {
  return transition;
}

const VARIANTS: readonly {
  readonly name: string;
  readonly description: string;
  readonly protocol: OrdersProtocol;
  readonly bounds?: OrdersBounds;
}[] = [
  {
    name: 'supervisor-ignores-deadline',
    description:
      'the supervisor fenced on the lock and failure count but not on the CompleteBy it saw pass: it ends an attempt whose deadline moved on',
    protocol: withTransitions((transitions) =>
      replaced(
        transitions,
        ['resetExpired', 'resetExpiredInStep', 'failExpired', 'failExpiredInStep'],
        (transition) => ({
          ...transition,
          condition: transition.condition.filter((condition) => !isCompleteBy(condition)),
        }),
      ),
    ),
  },
  {
    name: 'compensation-without-intent',
    description:
      'markCompensatingUncertain without its intent record (the Uncertain log entry): a compensation attempt that dies before its undo leaves nothing that says the step must be undone',
    protocol: withTransitions((transitions) =>
      replaced(transitions, ['markCompensatingUncertain'], (transition) => ({
        ...transition,
        set: transition.set.filter(([path]) => !(path.length === 2 && path[0] === StateAttr.CompensationLog)),
      })),
    ),
    bounds: { operatorCompensationRetries: 1 },
  },
  {
    name: 'completion-without-fence',
    description:
      "completeStep and completeOrder without their lock fence: a stale attempt's agent records its step on the attempt that replaced it",
    protocol: withTransitions((transitions) =>
      replaced(transitions, ['completeStep', 'completeOrder'], unfenced),
    ),
    // A second attempt while the first one's request is still in the agent's hands: an operator
    // retry of the failed first attempt (no crash, one call a delivery: the shortest way there).
    bounds: { operatorRetries: 1, crashes: 0, agentCalls: 1 },
  },
  {
    name: 'cancel-in-any-state',
    description:
      'operatorCancel without its state condition (Pending, Error or Processed): a cancel reopens a Compensated order, which is final',
    protocol: withTransitions((transitions) =>
      replaced(transitions, ['operatorCancel'], (transition) => ({
        ...transition,
        condition: transition.condition.filter((condition) => !('anyOf' in condition)),
      })),
    ),
    bounds: { operatorCancels: 1 },
  },
  {
    name: 'reservation-without-budget',
    description: "the call reservation without its budget check: calls exceed the order's retry budget",
    protocol: {
      ...ORDERS_PROTOCOL,
      reservation: { ...ORDERS_PROTOCOL.reservation, conditionExpression: 'attribute_exists(#orderId)' },
    },
  },
];

/**
 * The pinned versions still deployed by default (v1 classic, v3 lean): not variants but the code as
 * it runs orders submitted on them, with the hole the compact shape closed (a spent budget caught as a
 * refusal: DESIGN.md "Compact shape"). Each must yield its counterexample until it is retired; one
 * that did not would mean the model no longer sees why v5 changed.
 */
const PINNED_HOLES = DEFAULT_LIVE_WORKFLOW_VERSIONS.filter(
  (version) => workflowShape(version) !== 'compact',
).map((version) => ({
  name: `pinned-v${version}-spent-budget`,
  description: `workflow v${version} as deployed (${workflowShape(version)}, pinned): a spent retry budget caught as a refusal, so an effect whose answer was lost is never undone; fixed in the compact shape, kept until v${version} is retired`,
  protocol: { ...ORDERS_PROTOCOL, workflowVersion: version },
}));

/** Every broken variant, generated (each with the bounds that reach its counterexample). */
export function brokenVariants(bounds: OrdersBounds = {}): BrokenVariant[] {
  return [...VARIANTS, ...PINNED_HOLES].map((variant: (typeof VARIANTS)[number]) => ({
    name: variant.name,
    description: variant.description,
    model: ordersModel(variant.protocol, {
      bounds: { ...bounds, ...variant.bounds },
      name: `orders-${variant.name}`,
    }),
  }));
}
