/**
 * The runtime's own SQS service on a loopback port (AWS JSON protocol): queue URLs are
 * `${endpoint}/${accountId}/${queueName}`, as the runtime's intrinsics resolve them.
 */
import { startAwsJsonServer } from '../aws-json-server';
import type { RunningServer } from '../http-server';
import { SqsService, type SqsServiceOptions } from './service';

export { defaultPrincipalArn, SqsService, type SqsServiceOptions } from './service';

export async function startSqsService(options: SqsServiceOptions): Promise<RunningServer> {
  const service = new SqsService(options);
  const server = await startAwsJsonServer('SQS', service.operations());
  service.setEndpoint(server.endpoint);
  return {
    endpoint: server.endpoint,
    stop: async () => {
      // Waiting long polls answer (empty) before the server closes their connections.
      service.stop();
      await server.stop();
    },
  };
}
