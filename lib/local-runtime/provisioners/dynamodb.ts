/**
 * DynamoDB: the storage backend (DynamoDB Local through startDynamoDbEmulator, persisted under
 * `<data>/dynamodb` with --data; its Streams API on the same endpoint) and one table per
 * AWS::DynamoDB::Table, with its indexes, its stream and its time to live. Everyone but the runtime
 * reaches it through the gateway (../dynamodb/gateway.ts), which authenticates and authorizes every
 * request and meters it when the runtime meters.
 */

import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { holdDuringCalls } from '../clock';
import { applyTimeToLive, LocalTableStreams, streamSpecification, tableOfStreamArn } from '../dynamodb';
import { dynamoDbLocalBindingWarning } from '../dynamodb/dynamodb-local';
import { startDynamoDbGateway } from '../dynamodb/gateway';
import type { TableInfo } from '../dynamodb/iam-requests';
import { TableWriteSignal } from '../dynamodb/table-write-signal';
import { startDynamoDbEmulator } from '../emulators';
import type { Verdict } from '../iam/authorizer';
import type { SigningCredentials } from '../iam/credential-registry';
import type { Principal } from '../iam/principals';
import type { ListenContext, Provisioner, RuntimeContext, StackContext } from '../provisioning';
import { asRecord } from './values';

const TABLE = 'AWS::DynamoDB::Table';

export class DynamoDbProvisioner implements Provisioner {
  readonly name = 'DynamoDB';
  readonly resourceTypes = { runs: [TABLE] };
  private dynamodb: DynamoDBClient | undefined;
  /** Makes a Streams client of the gateway, signing with a consumer's credentials. */
  private gatewayStreamsClient:
    | ((credentials: SigningCredentials, consumer: string) => DynamoDBStreamsClient)
    | undefined;
  private tables: LocalTableStreams | undefined;
  /** Makes a client of the gateway for one caller, signing with its credentials. */
  private gatewayClient: ((caller: string, credentials: SigningCredentials) => DynamoDBClient) | undefined;
  /** What the gateway knows of each table, by name. */
  private readonly tableInfo = new Map<string, TableInfo>();
  /** Writes answered by the gateway: stream consumers on a virtual clock wait for them. */
  readonly tableWrites = new TableWriteSignal();

  /** A client for the backend (once it listens). */
  get client(): DynamoDBClient {
    if (!this.dynamodb) throw new Error('DynamoDB is not listening yet');
    return this.dynamodb;
  }

  /**
   * A client for the app's calls made by the runtime on a resource's behalf (Step Functions'
   * integration as its state machine's role): through the gateway, signed with `credentials`, and
   * named `caller` to the meter.
   */
  clientFor(caller: string, credentials: SigningCredentials): DynamoDBClient {
    if (!this.gatewayClient) throw new Error('DynamoDB is not listening yet');
    return this.gatewayClient(caller, credentials);
  }

  /**
   * A DynamoDB Streams client for a stream consumer reading as its role (a Lambda event source
   * mapping as its function's role, a pipe as its own): through the gateway, signed with
   * `credentials`, so that every DescribeStream, GetShardIterator and GetRecords is authorized as
   * on AWS, not only checked when the consumer starts.
   */
  streamsClientFor(credentials: SigningCredentials, consumer: string): DynamoDBStreamsClient {
    if (!this.gatewayStreamsClient) throw new Error('DynamoDB is not listening yet');
    return this.gatewayStreamsClient(credentials, consumer);
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
    context.problem(dynamoDbLocalBindingWarning(Number(new URL(server.endpoint).port)));
    const { meter } = context;
    const gateway = await startDynamoDbGateway({
      target: server.endpoint,
      iam: context.iam,
      region: context.region,
      accountId: context.accountId,
      tableOf: (name) => this.tableInfo.get(name),
      clock: context.clock,
      onWrite: (tables) => this.tableWrites.notify(tables),
      ...(meter ? { meter } : {}),
      onProblem: (message) => context.problem(message),
    });
    context.stopWith(gateway, 'backend');
    // Functions name themselves in the path for the meter (callerScoped); tools reach the gateway too.
    context.endpoints.announce('DYNAMODB', gateway.endpoint, gateway.endpoint, {
      callerScoped: meter !== undefined,
    });
    this.gatewayClient = (caller, credentials) => {
      const client = holdDuringCalls(
        new DynamoDBClient({
          region: context.region,
          credentials: { ...credentials },
          endpoint: `${gateway.endpoint}/${encodeURIComponent(caller)}`,
        }),
        context.clock,
        caller,
      );
      context.onStop(() => client.destroy());
      return client;
    };
    // DynamoDB Local serves the Streams API on the same endpoint: so does the gateway.
    context.endpoints.announce('DYNAMODB_STREAMS', gateway.endpoint);
    this.gatewayStreamsClient = (credentials, consumer) => {
      const streams = holdDuringCalls(
        new DynamoDBStreamsClient({
          region: context.region,
          credentials: { ...credentials },
          endpoint: gateway.endpoint,
        }),
        context.clock,
        consumer,
      );
      context.onStop(() => streams.destroy());
      return streams;
    };
    const client = holdDuringCalls(
      new DynamoDBClient({ ...context.clientConfig(), endpoint: server.endpoint }),
      context.clock,
    );
    this.dynamodb = client;
    const tables = new LocalTableStreams(client);
    this.tables = tables;
    context.publishTableStreams((stackName, logicalId) => tables.streamArn(stackName, logicalId));
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

  /**
   * May `principal` read the stream (a Lambda event source mapping's function role, a pipe's role)?
   * What Lambda checks when a mapping is created: DescribeStream, GetRecords and GetShardIterator on
   * the stream, ListStreams (no resource type: `*`), and for a table encrypted with a
   * customer-managed key, kms:Decrypt through DynamoDB
   * (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html#events-dynamodb-permissions).
   */
  authorizeStreamRead(context: RuntimeContext, principal: Principal, streamArn: string): Verdict {
    const onStream = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];
    const verdict = context.iam.authorizer.authorizeAll([
      ...onStream.map((action) => ({ principal, action, resource: streamArn })),
      { principal, action: 'dynamodb:ListStreams', resource: '*' },
    ]);
    if (!verdict.allowed) return verdict;
    const tableName = tableOfStreamArn(streamArn) ?? '';
    const key = this.tableInfo.get(tableName)?.kmsKey;
    if (!key) return verdict;
    return context.iam.keys.authorizeUse(context.iam.authorizer, {
      principal,
      actions: ['kms:Decrypt'],
      keyReference: key,
      viaService: 'dynamodb',
      encryptionContext: {
        'aws:dynamodb:tableName': tableName,
        'aws:dynamodb:subscriberId': context.accountId,
      },
    });
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
    const keyOf = (schema: unknown) =>
      String(
        (Array.isArray(schema) ? schema : []).find((entry) => asRecord(entry).KeyType === 'HASH')
          ?.AttributeName ?? '',
      );
    const sse = asRecord(properties.SSESpecification);
    const kmsKey =
      sse.SSEEnabled === true && typeof sse.KMSMasterKeyId === 'string' ? sse.KMSMasterKeyId : undefined;
    this.tableInfo.set(String(input.TableName), {
      name: String(input.TableName),
      arn: String(context.resolver.context.getAtt(logicalId, 'Arn')),
      partitionKey: keyOf(properties.KeySchema),
      indexPartitionKeys: Object.fromEntries(
        [
          ...(Array.isArray(properties.GlobalSecondaryIndexes) ? properties.GlobalSecondaryIndexes : []),
          ...(Array.isArray(properties.LocalSecondaryIndexes) ? properties.LocalSecondaryIndexes : []),
        ].map((index) => [String(asRecord(index).IndexName), keyOf(asRecord(index).KeySchema)]),
      ),
      ...(kmsKey ? { kmsKey } : {}),
    });
    // DynamoDB Local enforces time to live (within seconds, where AWS may take days).
    context.meter?.describe('tables', String(input.TableName), {
      stackName: context.stack.stackName,
      logicalId,
    });
    await applyTimeToLive(this.client, String(input.TableName), properties);
    await this.tableStreams.register(context.stack.stackName, logicalId, String(input.TableName), stream);
  }
}
