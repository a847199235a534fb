/**
 * DynamoDB: the storage backend (startDynamoDbEmulator, persisted under `<data>/dynamodb` with
 * --data) and one table per AWS::DynamoDB::Table, with its indexes.
 */
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { startDynamoDbEmulator } from '../emulators';
import type { ListenContext, Provisioner, StackContext } from '../provisioning';
import { asRecord } from './values';

const TABLE = 'AWS::DynamoDB::Table';

export class DynamoDbProvisioner implements Provisioner {
  readonly name = 'DynamoDB';
  readonly resourceTypes = { runs: [TABLE] };
  private dynamodb: DynamoDBClient | undefined;

  /** A client for the backend (once it listens). */
  get client(): DynamoDBClient {
    if (!this.dynamodb) throw new Error('DynamoDB is not listening yet');
    return this.dynamodb;
  }

  async listen(context: ListenContext): Promise<void> {
    const dataDir = context.options.dataDir;
    const server = await startDynamoDbEmulator(dataDir ? join(dataDir, 'dynamodb') : undefined);
    context.stopWith(server, 'backend');
    context.endpoints.announce('DYNAMODB', server.endpoint);
    const client = new DynamoDBClient({ ...context.clientConfig(), endpoint: server.endpoint });
    this.dynamodb = client;
    context.onStop(() => client.destroy());
    context.log(
      dataDir
        ? `data: DynamoDB tables persist in ${dataDir}`
        : 'data: in memory (use --data DIR to keep DynamoDB tables and SQS queues between runs)',
    );
  }

  async provision(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(TABLE)) await this.createTable(context, logicalId);
  }

  private async createTable(context: StackContext, logicalId: string): Promise<void> {
    const properties = context.resolver.properties(logicalId);
    const payPerRequest = properties.BillingMode === 'PAY_PER_REQUEST';
    const defaultThroughput = { ReadCapacityUnits: 5, WriteCapacityUnits: 5 };
    const index = (definition: unknown) => {
      const { IndexName, KeySchema, Projection, ProvisionedThroughput } = asRecord(definition);
      return {
        IndexName,
        KeySchema,
        Projection,
        ...(payPerRequest ? {} : { ProvisionedThroughput: ProvisionedThroughput ?? defaultThroughput }),
      };
    };
    const input = {
      TableName: context.resolver.physicalName(logicalId),
      KeySchema: properties.KeySchema,
      AttributeDefinitions: properties.AttributeDefinitions,
      ...(payPerRequest
        ? { BillingMode: 'PAY_PER_REQUEST' }
        : { ProvisionedThroughput: properties.ProvisionedThroughput ?? defaultThroughput }),
      ...(Array.isArray(properties.GlobalSecondaryIndexes)
        ? { GlobalSecondaryIndexes: properties.GlobalSecondaryIndexes.map(index) }
        : {}),
      ...(Array.isArray(properties.LocalSecondaryIndexes)
        ? {
            LocalSecondaryIndexes: properties.LocalSecondaryIndexes.map((definition) => {
              const { ProvisionedThroughput: _ignored, ...rest } = index(definition) as Record<
                string,
                unknown
              >;
              return rest;
            }),
          }
        : {}),
    } as CreateTableCommandInput;
    try {
      await this.client.send(new CreateTableCommand(input));
    } catch (error) {
      // A persisted data directory already holds the table from an earlier run.
      if (!(error instanceof ResourceInUseException)) {
        throw new Error(`Cannot create table ${logicalId}: ${(error as Error).message}`);
      }
    }
    if (asRecord(properties.TimeToLiveSpecification).Enabled === true) {
      context.named(logicalId, TABLE, 'time-to-live expiry is not emulated (items never expire locally)');
    }
    if (asRecord(properties.StreamSpecification).StreamViewType !== undefined) {
      context.named(logicalId, TABLE, 'DynamoDB Streams are not emulated');
    }
  }
}
