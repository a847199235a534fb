import { SHARED_DYNAMODB_ENDPOINT_ENV } from '../support/emulators';

export default async function globalTeardown(): Promise<void> {
  await globalThis.integrationDynamoDb?.stop();
  globalThis.integrationDynamoDb = undefined;
  delete process.env[SHARED_DYNAMODB_ENDPOINT_ENV];
}
