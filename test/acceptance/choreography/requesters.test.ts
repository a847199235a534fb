/**
 * Delivery requesters as clients (issue 23): each requester has its own API key and sees only its
 * own deliveries. Requester B gets 404 on A's delivery exactly as on an unknown id; B's submission
 * with A's id is refused with a 409 that names nothing of A's delivery (the same answer whatever
 * B's body); A's own conflicting resubmission still names the differing fields. Keys come from the
 * stack's Requesters output (the local runtime's values by key id; on AWS, API Gateway's).
 */
import { randomUUID } from 'node:crypto';
import type { RegisteredRequester, RequesterRegistry } from '../../../lambdas/choreography/contracts';
import { type ApiResponse, apiKeyValue } from '../client-support';
import { acceptanceTarget } from '../setup';
import { DELIVERIES_APP } from '../target';
import { DeliverySystemClient, ServiceTable } from './system-client';

const runId = randomUUID().slice(0, 8);
const idOf = (name: string) => `acc-req-${runId}-${name}`;
const delivery = (id: string, overrides: Record<string, unknown> = {}) => ({
  deliveryId: id,
  ownerId: 'owner-of-a',
  pickup: { lat: 47.6062, lon: -122.3321 },
  dropoff: { lat: 47.6205, lon: -122.3493 },
  packages: [{ packageId: 'parcel-1', weightGrams: 1200, size: 'SMALL' }],
  ...overrides,
});

let system: DeliverySystemClient;
/** Requester A's key is the target's own (the first requester's); B is the second requester. */
let keyB: string;
beforeAll(async () => {
  const target = acceptanceTarget(DELIVERIES_APP);
  system = new DeliverySystemClient(target);
  const requesters = JSON.parse(system.output('Requesters')) as RequesterRegistry;
  expect(requesters.length).toBeGreaterThan(1);
  expect(requesters[0]?.apiKeyId).toBe(system.output('ApiKeyId'));
  keyB = await apiKeyValue(target, (requesters[1] as RegisteredRequester).apiKeyId);
});
afterAll(() => system?.close());

const asB = () => ({ 'x-api-key': keyB });
const getAsB = (id: string) =>
  system.request('GET', `/deliveries/${encodeURIComponent(id)}`, undefined, asB());
/** The answer with the id it names replaced, to compare answers about two ids. */
const shape = (response: ApiResponse, id: string) => ({
  status: response.status,
  text: response.text.split(id).join('<id>'),
});

describe('two requesters', () => {
  const owned = idOf('owned');

  it("A's delivery is accepted, and A reads it", async () => {
    expect((await system.submit(delivery(owned))).status).toBe(202);
    expect((await system.getDelivery(owned)).status).toBe(200);
  });

  it("B gets 404 on A's delivery, exactly as on an unknown id", async () => {
    const theirs = await getAsB(owned);
    const unknown = await getAsB(idOf('never-submitted'));
    expect(theirs.status).toBe(404);
    expect(shape(theirs, owned)).toEqual(shape(unknown, idOf('never-submitted')));
  });

  it("B's submission with A's id gets a 409 naming nothing of A's delivery, whatever B's body, and stores nothing", async () => {
    const before = await system.item(ServiceTable.Ingestion, `DELIVERY#${owned}`);
    const differing = await system.submit(
      delivery(owned, { ownerId: 'owner-of-b', pickup: { lat: 47.61, lon: -122.33 } }),
      asB(),
    );
    const identical = await system.submit(delivery(owned), asB());
    expect(differing.status).toBe(409);
    expect(differing.body).toEqual({
      message: `Delivery id '${owned}' is not available; choose another deliveryId`,
      errors: [{ path: 'deliveryId', message: 'is not available' }],
    });
    // An identical body is refused alike: no 200 that would confirm A's data.
    expect(identical.status).toBe(409);
    expect(identical.text).toBe(differing.text);
    for (const leak of ['owner-of-a', 'ownerId', 'pickup', 'dropoff', 'Requested']) {
      expect(differing.text).not.toContain(leak);
    }
    expect(await system.item(ServiceTable.Ingestion, `DELIVERY#${owned}`)).toEqual(before);
  });

  it("A's own conflicting resubmission still gets the 409 naming the differing fields", async () => {
    const response = await system.submit(delivery(owned, { ownerId: 'changed-by-a' }));
    expect(response.status).toBe(409);
    expect(response.text).toContain('ownerId');
    expect(response.text).not.toContain('pickup');
  });

  it("B's own deliveries are B's: accepted for B, 404 to A", async () => {
    const mine = idOf('of-b');
    expect((await system.submit(delivery(mine, { ownerId: 'owner-of-b' }), asB())).status).toBe(202);
    expect((await getAsB(mine)).status).toBe(200);
    expect((await system.getDelivery(mine)).status).toBe(404);
  });
});
