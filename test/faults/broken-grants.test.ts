/**
 * A missing grant fails loudly (issue 20): the app run from a copy of its assembly with one action
 * removed from one role (lib/chaos/common/broken-grants.ts) gets AccessDenied from the local
 * runtime, as it would on AWS, and the acceptance suite's own wait for the happy path fails at once
 * naming the denial, not after its timeout. One broken grant per wing.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BROKEN_GRANTS, type BrokenGrant, plantBrokenGrant } from '../../lib/chaos/common/broken-grants';
import { type LocalRuntime, startLocalRuntime } from '../../lib/local-runtime';
import { IAM_RECORD_FILES } from '../../lib/local-runtime/iam/usage-record';
import { DeliverySystemClient } from '../acceptance/choreography/system-client';
import { IAM_DENIALS_ENV } from '../acceptance/iam-watch';
import { SystemClient } from '../acceptance/scheduler-agent-supervisor/system-client';
import { DELIVERIES_APP, loadTargetDescription, ORDERS_APP } from '../acceptance/target';
import { assemblyUnderTest, TEST_WORK_DIR } from './support';

/** The acceptance suite's own bound for a normal scenario (test/acceptance/setup.ts, local). */
const SCENARIO_TIMEOUT_MILLIS = 60_000;

async function withBrokenGrant<T>(grant: BrokenGrant, run: (targetFile: string) => Promise<T>): Promise<T> {
  mkdirSync(TEST_WORK_DIR, { recursive: true });
  const root = mkdtempSync(join(TEST_WORK_DIR, `grant-${grant.name}-`));
  const assemblyDir = join(root, 'cdk.out');
  plantBrokenGrant(assemblyUnderTest(), assemblyDir, grant);
  const targetFile = join(root, 'target.json');
  const iamRecordDir = join(root, 'iam');
  let runtime: LocalRuntime | undefined;
  const previous = process.env[IAM_DENIALS_ENV];
  try {
    runtime = await startLocalRuntime({
      assemblyDir,
      port: 0,
      targetFile,
      iamRecordDir,
      log: () => undefined,
    });
    process.env[IAM_DENIALS_ENV] = join(iamRecordDir, IAM_RECORD_FILES.denials);
    return await run(targetFile);
  } finally {
    if (previous === undefined) delete process.env[IAM_DENIALS_ENV];
    else process.env[IAM_DENIALS_ENV] = previous;
    await runtime?.stop();
    rmSync(dirname(assemblyDir), { recursive: true, force: true });
  }
}

describe('a missing grant fails the acceptance scenario with AccessDenied, not a timeout', () => {
  it(
    'orders: the payment agent without states:SendTaskSuccess',
    async () => {
      const grant = BROKEN_GRANTS.ordersAgentCannotAnswer;
      await withBrokenGrant(grant, async (targetFile) => {
        const client = new SystemClient(loadTargetDescription(targetFile, { kind: 'local' }, ORDERS_APP));
        const started = Date.now();
        const orderId = `grant-${Date.now()}`;
        const submitted = await client.submit({
          orderId,
          customerId: 'customer-42',
          items: [{ sku: 'BOOK', quantity: 1 }],
          totalCents: 1200,
          currency: 'EUR',
        });
        expect(submitted.status).toBe(202);
        const waiting = client.waitForState(orderId, ['Processed'], SCENARIO_TIMEOUT_MILLIS);
        await expect(waiting).rejects.toThrow(
          /IAM denied the app .*assumed-role\/SchedulerAgentSupervisor-ChargePaymentAgentRole[^ ]* is not authorized to perform: states:SendTaskSuccess on resource: arn:aws:states:/,
        );
        expect(Date.now() - started).toBeLessThan(SCENARIO_TIMEOUT_MILLIS);
      });
    },
    4 * 60_000,
  );

  it(
    'deliveries: the package service without dynamodb:PutItem',
    async () => {
      const grant = BROKEN_GRANTS.packageCannotWrite;
      await withBrokenGrant(grant, async (targetFile) => {
        const client = new DeliverySystemClient(
          loadTargetDescription(targetFile, { kind: 'local' }, DELIVERIES_APP),
        );
        const started = Date.now();
        const deliveryId = `grant-${Date.now()}`;
        const accepted = await client.submit({
          deliveryId,
          ownerId: 'owner-42',
          pickup: { lat: 47.6062, lon: -122.3321 },
          dropoff: { lat: 47.6205, lon: -122.3493 },
          packages: [{ packageId: 'parcel-1', weightGrams: 1200, size: 'SMALL' }],
        });
        expect(accepted.status).toBe(202);
        const waiting = client.waitForStatus(deliveryId, ['Delivered'], SCENARIO_TIMEOUT_MILLIS);
        await expect(waiting).rejects.toThrow(
          /IAM denied the app .*assumed-role\/DroneDelivery-PackageServiceConsumerRole[^ ]* is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:/,
        );
        expect(Date.now() - started).toBeLessThan(SCENARIO_TIMEOUT_MILLIS);
      });
    },
    4 * 60_000,
  );
});
