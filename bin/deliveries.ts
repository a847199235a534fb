#!/usr/bin/env node
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CHOREOGRAPHY_METRICS_NAMESPACE,
  DELIVERY_STATUSES,
  type DeliveryDetailBody,
  DeliveryMetric,
  type DeliveryRow,
  type DeliveryStatus,
  isDeliveryStatus,
  type SubmitDeliveryRequest,
} from '../lambdas/choreography/contracts';
/**
 * Operator CLI of the drone delivery choreography, against a running local runtime (found through
 * its target description, like bin/orders.ts):
 *
 *   npm run deliveries -- submit FILE | --sample     POST /deliveries (a JSON file, or a sample)
 *   npm run deliveries -- show DELIVERY_ID [--json]  the trail across services, sorted by time
 *   npm run deliveries -- list [--status S]          the deliveries as the read model reports them
 *   npm run deliveries -- metrics [--minutes N] [--aws]  the wing's metrics and every alarm's state
 *   [--target FILE]                                  default $LOCAL_TARGET, else .local/target.json
 *
 * `list` and `show` call the delivery API's operator routes (GET /operator/deliveries and
 * /operator/deliveries/{id}), signed with SigV4 as the runtime's operator, as `npm run orders -- ops`
 * does for orders: `show` is every service's change log entry for the delivery (the events it
 * emitted, and the operator alerts) and each remediation decision with the dead letter it resolved.
 */
import { CORRELATION_ID_HEADER } from '../lambdas/shared/http';
import type { DRONE_DELIVERY_STACK_NAME } from '../lib/choreography/stack';
import { metricsMinutes } from '../lib/harness/metrics-minutes';
import { DeliveryOperatorClient } from '../lib/harness/operator-client';
import { printMetricsReport } from '../lib/harness/print-metrics-report';
import { formatTable } from '../lib/harness/text-table';
import { defaultTargetFile, outputsOfStack, readTarget } from '../lib/local-runtime';

// This machine's tools run on Node 20 while the deployed Lambdas run on nodejs22.x; the SDK's
// Node 20 end-of-support notice says nothing actionable here, so local tools silence it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export const USAGE =
  'Usage: npm run deliveries -- submit <FILE>|--sample | show <deliveryId> [--json] | list [--status <DeliveryStatus>] | metrics [--minutes N] [--aws]   [--target FILE]';

/** The stack whose outputs the CLI reads (typed against the stack's name: a rename fails tsc here). */
export const DELIVERY_STACK: typeof DRONE_DELIVERY_STACK_NAME = 'DroneDelivery';

export type DeliveriesCommand =
  | { readonly command: 'submit'; readonly file?: string; readonly sample: boolean; readonly target?: string }
  | {
      readonly command: 'show';
      readonly deliveryId: string;
      readonly json: boolean;
      readonly target?: string;
    }
  | { readonly command: 'list'; readonly status?: DeliveryStatus; readonly target?: string }
  | {
      readonly command: 'metrics';
      readonly minutes: number;
      /** CloudWatch of AWS (the standard credential chain and region) rather than the local runtime's. */
      readonly aws: boolean;
      readonly target?: string;
    };

/** Parses the command line; throws an error naming what is wrong (with the usage). */
export function parseDeliveriesArguments(argv: readonly string[]): DeliveriesCommand {
  const args = [...argv];
  const take = (flag: string): string | undefined => {
    const index = args.indexOf(flag);
    if (index < 0) return undefined;
    const value = args[index + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value. ${USAGE}`);
    args.splice(index, 2);
    return value;
  };
  const flag = (name: string): boolean => {
    const index = args.indexOf(name);
    if (index >= 0) args.splice(index, 1);
    return index >= 0;
  };
  const target = take('--target');
  const status = take('--status');
  const sample = flag('--sample');
  const json = flag('--json');
  const minutesText = take('--minutes');
  const aws = flag('--aws');
  const unknown = args.find((arg) => arg.startsWith('--'));
  if (unknown) throw new Error(`Unknown option ${unknown}. ${USAGE}`);
  const [command, operand, ...rest] = args;
  if (rest.length > 0) throw new Error(`Unexpected arguments: ${rest.join(' ')}. ${USAGE}`);
  const withTarget = target === undefined ? {} : { target };
  const only = (allowed: readonly string[]) => {
    const given = [
      status !== undefined && '--status',
      sample && '--sample',
      json && '--json',
      minutesText !== undefined && '--minutes',
      aws && '--aws',
    ].filter((name): name is string => typeof name === 'string' && !allowed.includes(name));
    if (given.length > 0) throw new Error(`${command} does not take ${given.join(', ')}. ${USAGE}`);
  };
  switch (command) {
    case 'submit':
      only(['--sample']);
      if (sample === (operand !== undefined))
        throw new Error(`submit needs a FILE or --sample (one of them). ${USAGE}`);
      return { command, sample, ...(operand === undefined ? {} : { file: operand }), ...withTarget };
    case 'show':
      only(['--json']);
      if (!operand) throw new Error(`show needs a delivery id. ${USAGE}`);
      return { command, deliveryId: operand, json, ...withTarget };
    case 'list':
      only(['--status']);
      if (operand !== undefined) throw new Error(`list takes no operand. ${USAGE}`);
      if (status !== undefined && !isDeliveryStatus(status)) {
        throw new Error(`--status must be one of ${DELIVERY_STATUSES.join(', ')}; got '${status}'`);
      }
      return { command, ...(status === undefined ? {} : { status }), ...withTarget };
    case 'metrics': {
      only(['--minutes', '--aws']);
      if (operand !== undefined) throw new Error(`metrics takes no operand. ${USAGE}`);
      return { command, minutes: metricsMinutes(minutesText), aws, ...withTarget };
    }
    default:
      throw new Error(USAGE);
  }
}

/** A delivery that goes well: one small package across two streets of Seattle. */
export function sampleDelivery(id = `sample-${randomUUID().slice(0, 8)}`): SubmitDeliveryRequest {
  return {
    deliveryId: id,
    ownerId: 'owner-sample',
    pickup: { lat: 47.6062, lon: -122.3321 },
    dropoff: { lat: 47.6205, lon: -122.3493 },
    packages: [{ packageId: 'parcel-1', weightGrams: 1200, size: 'SMALL' }],
  };
}

/** `show`: a header (status and correlation id, from the read model) and the trail as a table. */
export function formatTrail(detail: DeliveryDetailBody): string {
  const { deliveryId, trail } = detail;
  const correlationId =
    detail.status?.correlationId ?? trail.find((entry) => entry.correlationId)?.correlationId ?? '?';
  const status = detail.status?.status ?? '?';
  const header = `Delivery ${deliveryId}  status ${status}  correlation ${correlationId}`;
  if (trail.length === 0) return `${header}\n(no change log entries)`;
  const rows = trail.map((entry) => [
    entry.at,
    entry.service,
    entry.kind,
    entry.what,
    entry.sequence === undefined ? '' : String(entry.sequence),
    entry.to ?? '',
    entry.correlationId && entry.correlationId !== correlationId
      ? `${entry.detail} [correlation ${entry.correlationId}]`.trim()
      : entry.detail,
  ]);
  return `${header}\n${formatTable([['TIME', 'SERVICE', 'KIND', 'WHAT', 'SEQ', 'TO', 'DETAIL'], ...rows])}`;
}

/** `list`: the operator route's rows (newest first, at most DELIVERY_LIST_MAX), shown oldest first as a log reads. */
export function formatList(rows: readonly DeliveryRow[], status?: string): string {
  const deliveries = [...rows].reverse();
  if (deliveries.length === 0) return status ? `No deliveries in status ${status}.` : 'No deliveries.';
  const lines = deliveries.map((row) => [
    row.deliveryId,
    row.status,
    row.correlationId ?? '',
    row.acceptedAt ?? '',
    row.updatedAt ?? '',
  ]);
  return `${formatTable([['DELIVERY', 'STATUS', 'CORRELATION', 'ACCEPTED', 'UPDATED'], ...lines])}\n${deliveries.length} deliver${deliveries.length === 1 ? 'y' : 'ies'}`;
}

function requireOutput(outputs: Readonly<Record<string, string>>, key: string): string {
  const value = outputs[key];
  if (!value)
    throw new Error(
      `The local target has no ${key} output of ${DELIVERY_STACK} (is the drone delivery app running?)`,
    );
  return value;
}

/** `metrics`: the wing's metrics (the contract's names) and its alarms (`<stack>-…`), locally or on AWS. */
async function metrics(command: Extract<DeliveriesCommand, { command: 'metrics' }>, targetFile: string) {
  await printMetricsReport(
    { targetFile, onAws: command.aws },
    {
      namespace: CHOREOGRAPHY_METRICS_NAMESPACE,
      metricNames: Object.values(DeliveryMetric),
      minutes: command.minutes,
      stackName: DELIVERY_STACK,
    },
  );
}

async function main(argv: readonly string[]): Promise<void> {
  const command = parseDeliveriesArguments(argv);
  const targetFile = resolve(
    command.target ??
      defaultTargetFile(process.env, { cwd: process.cwd(), projectRoot: resolve(__dirname, '..') }),
  );
  if (command.command === 'metrics') {
    await metrics(command, targetFile);
    return;
  }
  const target = readTarget(targetFile);
  const { outputs, apiKey } = outputsOfStack(target, DELIVERY_STACK);
  if (command.command === 'submit') {
    const body = command.file ? readFileSync(command.file, 'utf8') : JSON.stringify(sampleDelivery());
    const response = await fetch(`${requireOutput(outputs, 'ApiUrl').replace(/\/+$/, '')}/deliveries`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
      body,
    });
    const answer = await response.text();
    console.log(`HTTP ${response.status}  correlation ${response.headers.get(CORRELATION_ID_HEADER) ?? '-'}`);
    console.log(answer);
    if (response.status >= 400) process.exitCode = 1;
    return;
  }
  const operator = target.identities?.operator;
  if (!operator)
    throw new Error('The target description lists no operator identity: restart the local runtime');
  const deliveries = new DeliveryOperatorClient({
    apiUrl: requireOutput(outputs, 'ApiUrl'),
    region: target.region,
    credentials: { accessKeyId: operator.accessKeyId, secretAccessKey: operator.secretAccessKey },
  });
  if (command.command === 'list') {
    const answer = await deliveries.list(command.status);
    if (answer.status !== 200)
      throw new Error(`Listing deliveries answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    console.log(formatList(answer.body.items, command.status));
    return;
  }
  const id = command.deliveryId;
  const answer = await deliveries.show(id);
  if (answer.status === 404) {
    process.exitCode = 1;
    console.error(`Delivery ${id} is unknown to every service.`);
    return;
  }
  if (answer.status !== 200)
    throw new Error(`Reading delivery ${id} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const detail = answer.body;
  if (command.json) {
    console.log(
      JSON.stringify(
        {
          deliveryId: id,
          status: detail.status?.status,
          correlationId: detail.status?.correlationId,
          trail: detail.trail,
        },
        null,
        2,
      ),
    );
  } else {
    console.log(formatTrail(detail));
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: Error) => {
    console.error(error.message);
    process.exit(2);
  });
}
