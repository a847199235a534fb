/**
 * REMOTE_AUTH=iam: the agent signs remote calls with SigV4 (service 'lambda') from the default
 * credential chain, as a function URL with AuthType AWS_IAM requires. The function URL double
 * verifies the signature and refuses (403) what does not verify, before the handler runs.
 */
import { AgentError } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { TEST_CREDENTIALS, TEST_REGION } from '../../../support/emulators';
import {
  type AgentHarness,
  agentRequest,
  callbacksFor,
  invoke,
  ledgerEffect,
  remoteRequestsFor,
  sqsEvent,
  startAgentHarness,
} from './harness';

describe('agent with REMOTE_AUTH=iam (integration)', () => {
  let h: AgentHarness;

  beforeAll(async () => {
    h = await startAgentHarness({
      stallMillis: 0,
      server: { requireSigV4: { region: TEST_REGION, credentials: TEST_CREDENTIALS } },
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  const inventoryRequest = () => agentRequest({ step: 'ReserveInventory' });

  it('signs its calls so the IAM-protected function URL accepts them', async () => {
    const agent = await h.loadAgent({ step: 'ReserveInventory', auth: 'iam' });
    const request = inventoryRequest();

    const response = await invoke(agent, sqsEvent([request]));

    expect(response.batchItemFailures).toEqual([]);
    const [call] = remoteRequestsFor(h.remote, request.idempotencyKey);
    expect(call).toMatchObject({ path: '/inventory/reservations', status: 201 });
    expect(call?.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${TEST_CREDENTIALS.accessKeyId}/\\d{8}/${TEST_REGION}/lambda/aws4_request, SignedHeaders=.*idempotency-key.*`,
      ),
    );
    expect(callbacksFor(h.sfn, request.taskToken).map((c) => c.operation)).toEqual(['SendTaskSuccess']);
    expect(await ledgerEffect(h.dynamo, 'inventory', request.idempotencyKey)).toBeDefined();
  });

  it('is refused (403, a permanent failure) when it does not sign', async () => {
    const agent = await h.loadAgent({ step: 'ReserveInventory', auth: 'none' });
    const request = inventoryRequest();

    await invoke(agent, sqsEvent([request]));

    expect(remoteRequestsFor(h.remote, request.idempotencyKey).map((r) => r.status)).toEqual([403]);
    expect(callbacksFor(h.sfn, request.taskToken)[0]?.body).toMatchObject({ error: AgentError.Permanent });
    expect(await ledgerEffect(h.dynamo, 'inventory', request.idempotencyKey)).toBeUndefined();
  });

  it('is refused when it signs with credentials the function URL does not trust', async () => {
    const trusted = process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = 'not-the-right-secret';
    try {
      const agent = await h.loadAgent({ step: 'ReserveInventory', auth: 'iam' });
      const request = inventoryRequest();

      await invoke(agent, sqsEvent([request]));

      expect(remoteRequestsFor(h.remote, request.idempotencyKey).map((r) => r.status)).toEqual([403]);
      expect(await ledgerEffect(h.dynamo, 'inventory', request.idempotencyKey)).toBeUndefined();
    } finally {
      process.env.AWS_SECRET_ACCESS_KEY = trusted;
    }
  });
});
