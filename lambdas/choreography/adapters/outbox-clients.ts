/**
 * The SDK clients an outbox publisher needs, and only those: one per kind of destination whose
 * variable (DESTINATION_ENV_KEY) the function has, which is what its stack granted it. A relay
 * publishes its service's destinations only (SERVICE_DESTINATIONS: one kind for every service but
 * remediation, two there), and the drone fleet only the delivery queue, while one client module
 * each made every one of them load all three SDK clients at cold start.
 *
 * Each client's module is required here, not imported: esbuild keeps a bundled module that is
 * required inside a function unevaluated until the call, and with it its require of the SDK module
 * (external), so the cold start loads the SDK clients of the function's own destinations only. They
 * are still made at load, as every handler makes its clients, not on the first entry.
 */
import type * as EventBridgeClients from '../../shared/aws-clients/eventbridge';
import type { ClientTracer } from '../../shared/aws-clients/options';
import type * as SnsClients from '../../shared/aws-clients/sns';
import type * as SqsClients from '../../shared/aws-clients/sqs';
import { DESTINATION_ENV_KEY, OUTBOX_DESTINATIONS, OutboxDestination } from '../contracts';
import type { PublisherClients } from './outbox-publisher';

/** Which client sends to each kind of destination. */
const CLIENT_OF: Readonly<Record<OutboxDestination, keyof PublisherClients>> = {
  [OutboxDestination.RequestsTopic]: 'sns',
  [OutboxDestination.DeliveryQueue]: 'sqs',
  [OutboxDestination.DeliveryBus]: 'eventBridge',
  [OutboxDestination.AlertBus]: 'eventBridge',
};

/** The clients of the destinations named in `env`, each instrumented by `tracer`. */
export function createPublisherClients(
  tracer: ClientTracer,
  env: NodeJS.ProcessEnv = process.env,
): PublisherClients {
  const kinds = new Set(
    OUTBOX_DESTINATIONS.filter((destination) => env[DESTINATION_ENV_KEY[destination]]).map(
      (destination) => CLIENT_OF[destination],
    ),
  );
  return {
    ...(kinds.has('sns')
      ? { sns: (require('../../shared/aws-clients/sns') as typeof SnsClients).createSnsClient(tracer) }
      : {}),
    ...(kinds.has('sqs')
      ? { sqs: (require('../../shared/aws-clients/sqs') as typeof SqsClients).createSqsClient(tracer) }
      : {}),
    ...(kinds.has('eventBridge')
      ? {
          eventBridge: (
            require('../../shared/aws-clients/eventbridge') as typeof EventBridgeClients
          ).createEventBridgeClient(tracer),
        }
      : {}),
  };
}
