/**
 * DynamoDB: the storage backend (DynamoDB Local through startDynamoDbEmulator, persisted under
 * `<data>/dynamodb` with --data; its Streams API on the same endpoint) and one table per
 * AWS::DynamoDB::Table, with its indexes, its stream and its time to live. When the runtime meters,
 * the functions and Step Functions reach it through the capacity meter (../dynamodb/capacity-meter.ts).
 */
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { applyTimeToLive, LocalTableStreams, streamSpecification } from '../dynamodb';
import { startDynamoDbCapacityMeter } from '../dynamodb/capacity-meter';
import { startDynamoDbEmulator } from '../emulators';
import type { ListenContext, Provisioner, StackContext } from '../provisioning';
import { asRecord } from './values';

const TABLE = 'AWS::DynamoDB::Table';

export class DynamoDbProvisioner implements Provisioner {
  readonly name = 'DynamoDB';
  readonly resourceTypes = { runs: [TABLE] };
  private dynamodb: DynamoDBClient | undefined;
  private streamsClient: DynamoDBStreamsClient | undefined;
  private tables: LocalTableStreams | undefined;
  /** Makes a client of the capacity meter for one caller, when the runtime meters. */
  private meteredClient: ((caller: string) => DynamoDBClient) | undefined;

  /** A client for the backend (once it listens). */
  get client(): DynamoDBClient {
    if (!this.dynamodb) throw new Error('DynamoDB is not listening yet');
    return this.dynamodb;
  }

  /**
   * A client for the app's calls made by the runtime itself (Step Functions' integration), named
   * `caller` to the capacity meter when the runtime meters; the backend's client otherwise.
   */
  clientFor(caller: string): DynamoDBClient {
    return this.meteredClient?.(caller) ?? this.client;
  }

  /** A DynamoDB Streams client for the backend (once it listens). */
  get streams(): DynamoDBStreamsClient {
    if (!this.streamsClient) throw new Error('DynamoDB is not listening yet');
    return this.streamsClient;
  }

  /** The streams of the tables this runtime created. */
  get tableStreams(): LocalTableStreams {
    if (!this.tables) throw new Error('DynamoDB is not listening yet');
    return this.tables;
  }

  async listen(context: ListenContext): Promise<void> {
    const dataDir = context.options.dataDir;
    const server = await startDynamoDbEmulator(dataDir ? join(dataDir, 'dynamodb') : undefined);
    context.stopWith(server, 'backend');
    const { meter } = context;
    if (meter) {
      const capacityMeter = await startDynamoDbCapacityMeter({
        target: server.endpoint,
        meter,
        onProblem: (message) => context.problem(message),
      });
      context.stopWith(capacityMeter, 'backend');
      context.endpoints.announce('DYNAMODB', server.endpoint, capacityMeter.endpoint, { callerScoped: true });
      this.meteredClient = (caller) => {
        const client = new DynamoDBClient({
          ...context.clientConfig(),
          endpoint: `${capacityMeter.endpoint}/${encodeURIComponent(caller)}`,
        });
        context.onStop(() => client.destroy());
        return client;
      };
    } else {
      context.endpoints.announce('DYNAMODB', server.endpoint);
    }
    // DynamoDB Local serves the Streams API on the same endpoint.
    context.endpoints.announce('DYNAMODB_STREAMS', server.endpoint);
    const client = new DynamoDBClient({ ...context.clientConfig(), endpoint: server.endpoint });
    const streams = new DynamoDBStreamsClient({ ...context.clientConfig(), endpoint: server.endpoint });
    this.dynamodb = client;
    this.streamsClient = streams;
    const tables = new LocalTableStreams(client);
    this.tables = tables;
    context.publishTableStreams((stackName, logicalId) => tables.streamArn(stackName, logicalId));
    context.onStop(() => {
      client.destroy();
      streams.destroy();
    });
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
    const stream = streamSpecification(properties);
    const input = {
      TableName: context.resolver.physicalName(logicalId),
      ...(stream ? { StreamSpecification: stream } : {}),
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
    // DynamoDB Local enforces time to live (within seconds, where AWS may take days).
    context.meter?.describe('tables', String(input.TableName), {
      stackName: context.stack.stackName,
      logicalId,
    });
    await applyTimeToLive(this.client, String(input.TableName), properties);
    await this.tableStreams.register(context.stack.stackName, logicalId, String(input.TableName), stream);
  }
}
