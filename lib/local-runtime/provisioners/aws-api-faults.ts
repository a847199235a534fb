/**
 * The awsApi fault hook: an intercepting proxy in front of each local AWS service it names, which
 * the functions' sandboxes then reach instead of the service (AWS_ENDPOINT_URL_<SERVICE>). Listed
 * after every provisioner that announces a service, so each proxy stands in front of an endpoint
 * that exists; the Lambda provisioner reads the functions' endpoints only later, when it provisions.
 */
import { AWS_API_SERVICES, type AwsApiService, startInterceptingProxy } from '../fault-hooks';
import type { ListenContext, Provisioner } from '../provisioning';

export class AwsApiFaultProxies implements Provisioner {
  readonly name = 'AWS API fault proxies';
  readonly resourceTypes = {};

  async listen(context: ListenContext): Promise<void> {
    const interceptors = context.options.faults?.awsApi ?? {};
    for (const [service, interceptor] of Object.entries(interceptors)) {
      if (!interceptor) continue;
      const sdkServiceId = AWS_API_SERVICES[service as AwsApiService];
      // In front of what functions reach now (the capacity meter, when metering), so both apply.
      const endpoint = sdkServiceId ? context.endpoints.functionEndpoint(sdkServiceId) : undefined;
      if (!sdkServiceId || !endpoint) {
        throw new Error(`faults.awsApi names ${service}, which is not a service the runtime serves`);
      }
      const proxy = await startInterceptingProxy(
        endpoint,
        interceptor,
        (message) => context.problem(message),
        context.clock,
      );
      context.stopWith(proxy, 'producer');
      context.endpoints.redirectForFunctions(sdkServiceId, proxy.endpoint);
    }
  }
}
