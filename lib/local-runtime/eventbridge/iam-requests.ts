/**
 * What IAM is asked for each EventBridge API operation the runtime serves
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoneventbridge.html):
 * PutEvents on the bus of each entry (by name or ARN, the default bus when it names none), with
 * events:source and events:detail-type of the entry; the rule operations on the rule's ARN
 * (`rule/<name>` on the default bus, `rule/<bus>/<name>` on another); ListRules on `*`.
 * One refused entry refuses the whole PutEvents request here (AWS's per-entry answer to an
 * unauthorized entry is not documented).
 */

import type { RequestCheck } from '../iam/request-check';
import { busArn, busNameOf, ruleArn } from './event-buses';

type Body = Record<string, unknown>;

export function eventBridgeChecks(
  operationName: string,
  body: Body,
  scope: { readonly region: string; readonly accountId: string },
): RequestCheck[] {
  const action = `events:${operationName}`;
  if (operationName === 'PutEvents') {
    const entries = Array.isArray(body.Entries) ? (body.Entries as Body[]) : [];
    return entries.map((entry) => ({
      action,
      resource: busArn(scope.region, scope.accountId, entry.EventBusName),
      context: {
        'events:source': String(entry.Source ?? ''),
        'events:detail-type': String(entry.DetailType ?? ''),
      },
    }));
  }
  const name =
    typeof body.Name === 'string' ? body.Name : typeof body.Rule === 'string' ? body.Rule : undefined;
  if (name === undefined) return [{ action, resource: '*' }];
  return [{ action, resource: ruleArn(scope.region, scope.accountId, busNameOf(body.EventBusName), name) }];
}
