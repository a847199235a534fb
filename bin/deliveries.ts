#!/usr/bin/env node
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryDeliveryRecords, readDeliveryItems } from '../lambdas/choreography/adapters/delivery-trail';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type DeliveryTables,
  type DeliveryTrailEntry,
  isDeliveryStatus,
  type SubmitDeliveryRequest,
} from '../lambdas/choreography/contracts';
import {
  buildTrail,
  type DeliveryItems,
  deliveryRowsOf,
  isUnknownDelivery,
} from '../lambdas/choreography/domain/trail';
/**
 * Operator CLI of the drone delivery choreography, against a running local runtime (found through
 * its target description, like bin/orders.ts):
 *
 *   npm run deliveries -- submit FILE | --sample     POST /deliveries (a JSON file, or a sample)
 *   npm run deliveries -- show DELIVERY_ID [--json]  the trail across services, sorted by time
 *   npm run deliveries -- list [--status S]          the deliveries as the read model reports them
 *   [--target FILE]                                  default $LOCAL_TARGET, else .local/target.json
 *
 * `show` reads every service's item for the delivery (ingestion, package, drone scheduler, delivery,
 * remediation): each change log entry (the events the service emitted, and the operator alerts),
 * and each remediation decision with the dead letter it resolved.
 */
import { CORRELATION_ID_HEADER } from '../lambdas/shared/http';
import { defaultTargetFile, outputsOfStack, readTarget } from '../lib/local-runtime';
import { formatTable } from '../lib/harness/text-table';

// This machine's tools run on Node 20 while the deployed Lambdas run on nodejs22.x; the SDK's
// Node 20 end-of-support notice says nothing actionable here, so local tools silence it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export const USAGE =
  'Usage: npm run deliveries -- submit <FILE>|--sample | show <deliveryId> [--json] | list [--status <DeliveryStatus>]   [--target FILE]';

/** The stack whose outputs the CLI reads. */
export const DELIVERY_STACK = 'DroneDelivery';

export type DeliveriesCommand =
  | { readonly command: 'submit'; readonly file?: string; readonly sample: boolean; readonly target?: string }
  | {
      readonly command: 'show';
      readonly deliveryId: string;
      readonly json: boolean;
      readonly target?: string;
    }
  | { readonly command: 'list'; readonly status?: DeliveryStatus; readonly target?: string };

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
  const unknown = args.find((arg) => arg.startsWith('--'));
  if (unknown) throw new Error(`Unknown option ${unknown}. ${USAGE}`);
  const [command, operand, ...rest] = args;
  if (rest.length > 0) throw new Error(`Unexpected arguments: ${rest.join(' ')}. ${USAGE}`);
  const withTarget = target === undefined ? {} : { target };
  const only = (allowed: readonly string[]) => {
    const given = [status !== undefined && '--status', sample && '--sample', json && '--json'].filter(
      (name): name is string => typeof name === 'string' && !allowed.includes(name),
    );
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

type Item = Record<string, unknown>;

/** One entry of a delivery's trail (the operator routes' contract is its home). */
export type TrailEntry = DeliveryTrailEntry;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** `show`: a header (status and correlation id, from the read model) and the trail as a table. */
export function formatTrail(deliveryId: string, items: DeliveryItems, trail: readonly TrailEntry[]): string {
  const correlationId =
    text(items.ingestion?.correlationId) ?? trail.find((entry) => entry.correlationId)?.correlationId ?? '?';
  const status = text(items.ingestion?.status) ?? '?';
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

/**
 * `list`: the console's rows (deliveryRowsOf: delivery items only, of the status, the newest
 * DELIVERY_LIST_MAX), shown oldest first as a log reads.
 */
export function formatList(items: readonly Item[], status?: string): string {
  const deliveries = deliveryRowsOf(items, status).reverse();
  if (deliveries.length === 0) return status ? `No deliveries in status ${status}.` : 'No deliveries.';
  const rows = deliveries.map((row) => [
    row.deliveryId,
    row.status,
    row.correlationId ?? '',
    row.acceptedAt ?? '',
    row.updatedAt ?? '',
  ]);
  return `${formatTable([['DELIVERY', 'STATUS', 'CORRELATION', 'ACCEPTED', 'UPDATED'], ...rows])}\n${deliveries.length} deliver${deliveries.length === 1 ? 'y' : 'ies'}`;
}

function requireOutput(outputs: Readonly<Record<string, string>>, key: string): string {
  const value = outputs[key];
  if (!value)
    throw new Error(
      `The local target has no ${key} output of ${DELIVERY_STACK} (is the drone delivery app running?)`,
    );
  return value;
}

/** The services' tables, from the stack's outputs (naming a missing one). */
export function deliveryTablesOf(outputs: Readonly<Record<string, string>>): DeliveryTables {
  return {
    ingestion: requireOutput(outputs, 'IngestionTableName'),
    package: requireOutput(outputs, 'PackageTableName'),
    droneScheduler: requireOutput(outputs, 'DroneSchedulerTableName'),
    delivery: requireOutput(outputs, 'DeliveryTableName'),
    remediation: requireOutput(outputs, 'RemediationTableName'),
  };
}

async function main(argv: readonly string[]): Promise<void> {
  const command = parseDeliveriesArguments(argv);
  const target = readTarget(
    resolve(
      command.target ??
        defaultTargetFile(process.env, { cwd: process.cwd(), projectRoot: resolve(__dirname, '..') }),
    ),
  );
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
  const client = new DynamoDBClient({
    region: target.region,
    endpoint: target.endpoints.dynamodb,
    credentials: { ...target.credentials },
  });
  const documents = DynamoDBDocumentClient.from(client);
  try {
    if (command.command === 'list') {
      console.log(
        formatList(
          await queryDeliveryRecords(documents, requireOutput(outputs, 'IngestionTableName'), command.status),
          command.status,
        ),
      );
      return;
    }
    const id = command.deliveryId;
    const items = await readDeliveryItems(documents, deliveryTablesOf(outputs), id);
    if (isUnknownDelivery(items)) {
      process.exitCode = 1;
      console.error(`Delivery ${id} is unknown to every service.`);
      return;
    }
    const trail = buildTrail(items);
    if (command.json) {
      console.log(
        JSON.stringify(
          {
            deliveryId: id,
            status: items.ingestion?.status,
            correlationId: items.ingestion?.correlationId,
            trail,
          },
          null,
          2,
        ),
      );
    } else {
      console.log(formatTrail(id, items, trail));
    }
  } finally {
    client.destroy();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: Error) => {
    console.error(error.message);
    process.exit(2);
  });
}
