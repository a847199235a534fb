/**
 * Reads what domain/trail.ts builds an operator's view from: one delivery's item in each service's
 * table, and the newest delivery items of the ingestion read model. Used by the operator route handlers,
 * the CLI (bin/deliveries.ts) and the local console backend alike.
 */
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../../shared/env';
import { jsonParser } from '../../shared/parse';
import {
  ChoreographyEnvKey,
  DELIVERIES_BY_STATUS_INDEX,
  DELIVERY_LIST_MAX,
  DELIVERY_STATUSES,
  type DeliveryStatus,
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
 * The newest delivery items of the ingestion read model, of one status or of every status: a Query
 * of DELIVERIES_BY_STATUS_INDEX per status, newest accepted first, at most DELIVERY_LIST_MAX each,
 * so a list reads the same few items whatever the table holds. The index is eventually consistent:
 * a delivery accepted a moment ago may be missing from the list, never from its trail.
 */
export async function queryDeliveryRecords(
  documents: Pick<DynamoDBDocumentClient, 'send'>,
  ingestionTable: string,
  status?: DeliveryStatus,
): Promise<Item[]> {
  const statuses = status === undefined ? DELIVERY_STATUSES : [status];
  const pages = await Promise.all(
    statuses.map((wanted) =>
      documents.send(
        new QueryCommand({
          TableName: ingestionTable,
          IndexName: DELIVERIES_BY_STATUS_INDEX.name,
          KeyConditionExpression: '#status = :status',
          ExpressionAttributeNames: { '#status': DELIVERIES_BY_STATUS_INDEX.partitionKey },
          ExpressionAttributeValues: { ':status': wanted },
          ScanIndexForward: false,
          Limit: DELIVERY_LIST_MAX,
        }),
      ),
    ),
  );
  return pages.flatMap((page) => page.Items ?? []);
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
