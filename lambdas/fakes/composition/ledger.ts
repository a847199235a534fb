/**
 * The fakes' ledger composed on a given DynamoDB client: what the remote-service handler records
 * through, and what the tooling does with the same table (reads everything the fake downstream did,
 * plays the provider's fix that ends an OUTAGE). The tooling uses the fakes through this face and
 * their contracts, never through their adapters (the house rules hold it).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ServiceName } from '../../scheduler-agent-supervisor/contracts';
import { DynamoDbLedger, type LedgerContents, type LedgerPort, readLedger } from '../adapters/ledger';

export type {
  LedgerCallCount,
  LedgerClosedKey,
  LedgerContents,
  LedgerEffect,
  LedgerPort,
  LedgerUndo,
} from '../adapters/ledger';

/** The ledger as the fake services and the tooling use it. */
export interface ComposedLedger extends LedgerPort {
  /** Ends the OUTAGE of one key (not a service operation: the provider's fix). Idempotent. */
  endOutage(service: ServiceName, idempotencyKey: string): Promise<void>;
  /** Everything the fake downstream did, read consistently (for tooling and tests, never the services). */
  contents(): Promise<LedgerContents>;
}

/**
 * The ledger on `tableName` through `client` (the handler's is traced; the tooling's is plain);
 * `now` stamps what it writes (a campaign's: its run's clock). @default the machine's time
 */
export function composeLedger(client: DynamoDBClient, tableName: string, now?: () => Date): ComposedLedger {
  const ledger = new DynamoDbLedger(client, tableName, now);
  return Object.assign(ledger, { contents: () => readLedger(client, tableName) });
}
