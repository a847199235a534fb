/**
 * What IAM is asked for each CloudWatch API operation the runtime serves: the action and the
 * resources, as the Service Authorization Reference lists them
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html):
 * alarm operations on the alarms' ARNs (`arn:aws:cloudwatch:<region>:<account>:alarm:<name>`),
 * metric operations on `*` (they have no resource type), PutMetricData with cloudwatch:namespace.
 * DescribeAlarms without AlarmNames is asked on `alarm:<prefix>*` (`alarm:*` without a prefix):
 * AWS does not document which resource it evaluates a listing against; a policy naming the
 * prefix's alarms, like the deployed console's, is allowed.
 */
import type { RequestCheck } from '../iam/request-check';
import type { CloudWatchBody } from './server';

export function cloudWatchChecks(
  operationName: string,
  input: CloudWatchBody,
  scope: { readonly region: string; readonly accountId: string },
): RequestCheck[] {
  const action = `cloudwatch:${operationName}`;
  const alarm = (name: string) => `arn:aws:cloudwatch:${scope.region}:${scope.accountId}:alarm:${name}`;
  switch (operationName) {
    case 'DescribeAlarms': {
      const names = Array.isArray(input.AlarmNames) ? input.AlarmNames.map(String) : [];
      if (names.length > 0) return names.map((name) => ({ action, resource: alarm(name) }));
      const prefix = typeof input.AlarmNamePrefix === 'string' ? input.AlarmNamePrefix : '';
      return [{ action, resource: alarm(`${prefix}*`) }];
    }
    case 'SetAlarmState':
      return [{ action, resource: alarm(String(input.AlarmName ?? '')) }];
    case 'PutMetricData':
      return [{ action, resource: '*', context: { 'cloudwatch:namespace': String(input.Namespace ?? '') } }];
    default:
      return [{ action, resource: '*' }];
  }
}
