/**
 * The endpoint of every AWS service without a local one (AWS_ENDPOINT_URL): a function calling it
 * gets an error naming the service, and nothing ever reaches a real account.
 */
import { startUnsupportedServiceServer } from '../protocol/aws-json-server';
import type { ListenContext, Provisioner } from '../provisioning';

export class UnsupportedServices implements Provisioner {
  readonly name = 'unsupported AWS services';
  readonly resourceTypes = {};

  async listen(context: ListenContext): Promise<void> {
    const server = await startUnsupportedServiceServer(context.clock);
    context.stopWith(server, 'backend');
    context.endpoints.announceFallback(server.endpoint);
  }
}
