/**
 * Jest global setup of the `integration` project: one DynamoDB Local JVM for every test file of the
 * project (a JVM takes seconds to start; a file's own database costs nothing). Each test file still
 * sees only its own tables: see TEST_CREDENTIALS in test/support/emulators.ts. Tests that run the
 * whole local runtime start the runtime's own emulator, as `npm start` does.
 */
import {
  type RunningDynamoDbLocal,
  startDynamoDbLocal,
} from '../../lib/local-runtime/dynamodb/dynamodb-local';
import { SHARED_DYNAMODB_ENDPOINT_ENV } from '../support/emulators';

declare global {
  // The emulator handle crosses from global setup to global teardown (same process).
  var integrationDynamoDb: RunningDynamoDbLocal | undefined;
}

export default async function globalSetup(): Promise<void> {
  globalThis.integrationDynamoDb = await startDynamoDbLocal({ sharedDb: false });
  // Test workers are started after global setup and inherit its environment.
  process.env[SHARED_DYNAMODB_ENDPOINT_ENV] = globalThis.integrationDynamoDb.endpoint;
}
