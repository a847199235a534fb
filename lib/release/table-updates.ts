/**
 * What CloudFormation refuses, or loses, when it updates an AWS::DynamoDB::Table in place (a table
 * that is replaced or removed is judged by its impact, not here). From the resource's pages:
 *
 * - Global secondary indexes, https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-dynamodb-table.html#cfn-dynamodb-table-globalsecondaryindexes:
 *   "Updates are not supported. The following are exceptions: If you update either the contributor
 *   insights specification or the provisioned throughput values of global secondary indexes, you
 *   can update the table without interruption. You can delete or add one global secondary index
 *   without interruption. If you do both in the same update (for example, by changing the index's
 *   logical ID), the update fails." So at most one index created or deleted per update (DynamoDB's
 *   own rule: "You can create or delete only one global secondary index per UpdateTable operation",
 *   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html), and an
 *   index's `KeySchema`, `Projection` and `IndexName` cannot change ("Update requires: Updates are
 *   not supported", https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-dynamodb-table-globalsecondaryindex.html):
 *   a renamed index is a delete and a create (two changes), a changed key or projection is refused.
 *   The same page recommends updating no other resource in an update that adds or deletes an index
 *   (a rolled-back update leaves the new index to delete by hand): a note, not a failure.
 * - Local secondary indexes, https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-dynamodb-table-localsecondaryindex.html:
 *   "A local secondary index can only be created when its parent table is created", and none of its
 *   properties can be updated. What CloudFormation does with a changed list on an existing table is
 *   not documented (the table's page says "No interruption", DynamoDB's UpdateTable has no
 *   parameter for it): counted as refused.
 * - The stream, https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-dynamodb-table-streamspecification.html:
 *   removing `StreamSpecification` disables the stream; changing `StreamViewType` makes DynamoDB
 *   create a new stream (the old one is deleted after its 24-hour retention). The event source
 *   mappings and pipes that follow the table's `StreamArn` move to the new stream, and records not
 *   yet read from the old one (outbox entries, here) are never delivered: a loss.
 *
 * Not checked, not decidable from two templates: DynamoDB's limits on how often a table may switch
 * billing mode or table class, which depend on the table's history.
 */
import { deepEqual } from '@aws-cdk/cloudformation-diff';
import type { LossRule, RefusalRule } from './upgrade-finding';

type Properties = Readonly<Record<string, unknown>>;

/** One broken rule of a table update, without the table's id (the caller knows it). */
export interface TableBreach {
  readonly rule: RefusalRule | LossRule;
  readonly reason: string;
}

/** The global secondary indexes an update creates, deletes, or changes in place (by name). */
export interface IndexChanges {
  readonly created: readonly string[];
  readonly deleted: readonly string[];
  /** Same name, different `KeySchema` or `Projection`. */
  readonly changedInPlace: readonly string[];
}

interface GlobalSecondaryIndex {
  readonly IndexName: string;
  readonly KeySchema?: unknown;
  readonly Projection?: unknown;
}

function indexesOf(properties: Properties, tableId: string): Map<string, GlobalSecondaryIndex> {
  const indexes = properties.GlobalSecondaryIndexes ?? [];
  if (!Array.isArray(indexes)) {
    throw new Error(
      `${tableId}: GlobalSecondaryIndexes is not a list (${JSON.stringify(indexes).slice(0, 80)}): the upgrade check cannot tell which indexes change`,
    );
  }
  return new Map(
    indexes.map((index: GlobalSecondaryIndex) => {
      if (typeof index?.IndexName !== 'string') {
        throw new Error(`${tableId}: a global secondary index has no literal IndexName`);
      }
      return [index.IndexName, index];
    }),
  );
}

/** Which global secondary indexes change between `before` and `after` of table `tableId`. */
export function indexChanges(before: Properties, after: Properties, tableId: string): IndexChanges {
  const old = indexesOf(before, tableId);
  const current = indexesOf(after, tableId);
  const changedInPlace = [...current.values()]
    .filter((index) => {
      const was = old.get(index.IndexName);
      return (
        was !== undefined &&
        (!deepEqual(was.KeySchema, index.KeySchema) || !deepEqual(was.Projection, index.Projection))
      );
    })
    .map((index) => index.IndexName);
  return {
    created: [...current.keys()].filter((name) => !old.has(name)),
    deleted: [...old.keys()].filter((name) => !current.has(name)),
    changedInPlace,
  };
}

const list = (names: readonly string[]) => names.join(', ');

/** The rules an in-place update of table `tableId` from `before` to `after` breaks (see the header). */
export function tableUpdateBreaches(before: Properties, after: Properties, tableId: string): TableBreach[] {
  const breaches: TableBreach[] = [];
  const { created, deleted, changedInPlace } = indexChanges(before, after, tableId);
  if (created.length + deleted.length > 1) {
    const what = [
      created.length > 0 ? `creates ${list(created)}` : '',
      deleted.length > 0 ? `deletes ${list(deleted)}` : '',
    ].filter(Boolean);
    breaches.push({
      rule: 'gsi-creates-deletes',
      reason: `${what.join(' and ')}: CloudFormation adds or deletes one global secondary index per update; ship them in separate releases`,
    });
  }
  if (changedInPlace.length > 0) {
    breaches.push({
      rule: 'gsi-changed-in-place',
      reason: `changes the key schema or projection of ${list(changedInPlace)}: CloudFormation does not update an index's keys or projection; add an index under a new name, then delete the old one in a later release`,
    });
  }
  if (!deepEqual(before.LocalSecondaryIndexes ?? [], after.LocalSecondaryIndexes ?? [])) {
    breaches.push({
      rule: 'lsi-changed',
      reason:
        'changes its local secondary indexes: they exist only as created with the table, which an update cannot change',
    });
  }
  const oldView = (before.StreamSpecification as { StreamViewType?: unknown } | undefined)?.StreamViewType;
  const newView = (after.StreamSpecification as { StreamViewType?: unknown } | undefined)?.StreamViewType;
  if (oldView !== undefined && !deepEqual(oldView, newView)) {
    breaches.push({
      rule: 'stream-replaced',
      reason:
        newView === undefined
          ? 'removes its stream: records its readers have not read yet are never delivered'
          : `changes its stream from ${JSON.stringify(oldView)} to ${JSON.stringify(newView)}: DynamoDB makes a new stream, its readers move to it, and records not read yet from the old one are never delivered`,
    });
  }
  return breaches;
}
