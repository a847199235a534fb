/**
 * The `metrics` command of both CLIs (npm run orders -- metrics, npm run deliveries -- metrics):
 * prints metricsReport read from the local runtime's CloudWatch (its endpoint in the target
 * description) or, with onAws, from AWS with the standard credential chain. One home, so the two
 * CLIs read the same endpoint with the same refusal when the target lists none, and each shows its
 * own stack's alarms only (their names start `<stack>-`: alarmNamePrefix).
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { alarmNamePrefix } from '../../lambdas/shared/alarm-spec';
import { readTarget } from '../local-runtime';
import { type MetricsReportOptions, metricsReport } from './metrics-report';

export async function printMetricsReport(
  source: { readonly targetFile: string; readonly onAws: boolean },
  options: Omit<MetricsReportOptions, 'alarmNamePrefix'> & {
    /** The wing's stack: only its alarms are listed. */
    readonly stackName: string;
  },
): Promise<void> {
  const client = source.onAws ? new CloudWatchClient({}) : localCloudWatch(source.targetFile);
  try {
    const { stackName, ...report } = options;
    console.log(await metricsReport(client, { ...report, alarmNamePrefix: alarmNamePrefix(stackName) }));
  } finally {
    client.destroy();
  }
}

function localCloudWatch(targetFile: string): CloudWatchClient {
  const target = readTarget(targetFile);
  const endpoint = target.endpoints.cloudwatch;
  if (!endpoint)
    throw new Error(`${targetFile} lists no CloudWatch endpoint: restart the local runtime (npm start)`);
  return new CloudWatchClient({ region: target.region, endpoint, credentials: { ...target.credentials } });
}
