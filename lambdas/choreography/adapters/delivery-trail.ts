/**
 * Reads what domain/trail.ts builds an operator's view from: one delivery's item in each service's
 * table, and the delivery items of the ingestion read model. Used by the operator route handlers,
 * the CLI (bin/deliveries.ts) and the local console backend alike.
 */
import { type DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../../shared/env';
import { jsonParser } from '../../shared/parse';
import {
  ChoreographyEnvKey,
  type DeliveryTables,
  DeliveryTablesSchema,
  remediationKeyOf,
} from '../contracts';
import { deliveryKeyOf } from '../domain/ingestion';
import { packagesKeyOf } from '../domain/package-service';
import type { DeliveryItems } from '../domain/trail';
import { assignmentKeyOf } from './drone-fleet';

type Item = Record<string, unknown>;

/** DELIVERY_TABLES, validated: a trail route missing a table must fail at load, not answer half a trail. */
export function readDeliveryTables(env: NodeJS.ProcessEnv = process.env): DeliveryTables {
  const parsed = jsonParser(DeliveryTablesSchema)(requireEnv(ChoreographyEnvKey.DeliveryTables, env));
  if (!parsed.ok) throw new Error(`${ChoreographyEnvKey.DeliveryTables} is not valid: ${parsed.summary}`);
  return parsed.value;
}

/**
 * Every delivery item of the ingestion read model: a scan, filtered to the DELIVERY# items. Cost
 * grows with the table (README, Operator console: what is not built names the index it would need).
 */
export async function scanDeliveryRecords(
  documents: Pick<DynamoDBDocumentClient, 'send'>,
  ingestionTable: string,
): Promise<Item[]> {
  const items: Item[] = [];
  let exclusiveStartKey: Item | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: ingestionTable,
        FilterExpression: 'begins_with(pk, :delivery)',
        ExpressionAttributeValues: { ':delivery': deliveryKeyOf('') },
        ExclusiveStartKey: exclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    exclusiveStartKey = page.LastEvaluatedKey;
  } while (exclusiveStartKey);
  return items;
}

/** One delivery's item in each service's table, read consistently (what the trail is built from). */
export async function readDeliveryItems(
  documents: Pick<DynamoDBDocumentClient, 'send'>,
  tables: DeliveryTables,
  deliveryId: string,
): Promise<DeliveryItems> {
  const get = async (table: string, pk: string) =>
    (await documents.send(new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }))).Item;
  const [ingestion, packages, droneScheduler, delivery, remediation] = await Promise.all([
    get(tables.ingestion, deliveryKeyOf(deliveryId)),
    get(tables.package, packagesKeyOf(deliveryId)),
    get(tables.droneScheduler, assignmentKeyOf(deliveryId)),
    get(tables.delivery, deliveryKeyOf(deliveryId)),
    get(tables.remediation, remediationKeyOf(deliveryId)),
  ]);
  return { ingestion, package: packages, droneScheduler, delivery, remediation };
}
