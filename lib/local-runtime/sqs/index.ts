/**
 * The runtime's own SQS service on a loopback port (AWS JSON protocol): queue URLs are
 * `${endpoint}/${accountId}/${queueName}`, as the runtime's intrinsics resolve them.
 */
import { startAwsJsonServer } from '../protocol/aws-json-server';
import type { RunningServer } from '../protocol/http-server';
import type { SqsQueueAuthorizer } from './queue-authorizer';
import type { QueueFigures } from './queue-store';
import { SqsService, type SqsServiceOptions } from './service';

export {
  type QueueSecurity,
  SQS_ACTION_OF_OPERATION,
  type SqsAuthorization,
  SqsQueueAuthorizer,
} from './queue-authorizer';
export type { QueueFigures } from './queue-store';
export {
  messagePayloadBytes,
  type SqsRequestRecord,
  SqsService,
  type SqsServiceOptions,
} from './service';

/** The running service, and what CloudWatch's AWS/SQS metrics read of its queues. */
export interface RunningSqsService extends RunningServer {
  queueFigures(now: number): QueueFigures[];
  queueSecurity: SqsService['queueSecurity'];
  /** How the service authorizes requests to its queues (for deliveries the runtime makes itself). */
  readonly queueAuthorizer: SqsQueueAuthorizer;
}

export async function startSqsService(options: SqsServiceOptions): Promise<RunningSqsService> {
  const service = new SqsService(options);
  const server = await startAwsJsonServer('SQS', service.operations(), {
    ...(options.clock && { clock: options.clock }),
  });
  service.setEndpoint(server.endpoint);
  return {
    endpoint: server.endpoint,
    queueFigures: (now) => service.queueFigures(now),
    queueSecurity: (queueArn) => service.queueSecurity(queueArn),
    queueAuthorizer: service.queueAuthorizer,
    stop: async () => {
      // Waiting long polls answer (empty) before the server closes their connections.
      service.stop();
      await server.stop();
    },
  };
}
