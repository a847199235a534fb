/**
 * The runtime's own SQS service on a loopback port (AWS JSON protocol): queue URLs are
 * `${endpoint}/${accountId}/${queueName}`, as the runtime's intrinsics resolve them.
 */
import { startAwsJsonServer } from '../aws-json-server';
import type { RunningServer } from '../http-server';
import { type QueueFigures, SqsService, type SqsServiceOptions } from './service';

export {
  defaultPrincipalArn,
  messagePayloadBytes,
  type QueueFigures,
  type SqsAuthorization,
  type SqsRequestRecord,
  SqsService,
  type SqsServiceOptions,
} from './service';

/** The running service, and what CloudWatch's AWS/SQS metrics read of its queues. */
export interface RunningSqsService extends RunningServer {
  queueFigures(now: number): QueueFigures[];
  queueSecurity: SqsService['queueSecurity'];
}

export async function startSqsService(options: SqsServiceOptions): Promise<RunningSqsService> {
  const service = new SqsService(options);
  const server = await startAwsJsonServer('SQS', service.operations());
  service.setEndpoint(server.endpoint);
  return {
    endpoint: server.endpoint,
    queueFigures: (now) => service.queueFigures(now),
    queueSecurity: (queueArn) => service.queueSecurity(queueArn),
    stop: async () => {
      // Waiting long polls answer (empty) before the server closes their connections.
      service.stop();
      await server.stop();
    },
  };
}
