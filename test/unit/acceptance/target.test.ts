import {
  assertAllEndpointsLocal,
  DELIVERIES_APP,
  DELIVERY_OUTPUT_KEYS,
  isLoopbackUrl,
  parseTargetDescription,
} from '../../acceptance/target';

const outputs = {
  ApiUrl: 'http://127.0.0.1:3000/',
  StateTableName: 's',
  OrdersTableName: 'o',
  LedgerTableName: 'l',
  AlertInboxQueueUrl: 'http://127.0.0.1:9324/q/a',
  ConflictQueueUrl: 'http://127.0.0.1:9324/q/c',
};

describe('target description', () => {
  it('reads a cdk --outputs-file with one stack', () => {
    const target = parseTargetDescription(
      { SchedulerAgentSupervisor: outputs },
      { kind: 'aws', region: 'eu-west-1' },
    );
    expect(target).toMatchObject({ kind: 'aws', region: 'eu-west-1', endpoints: {}, outputs });
  });

  it('reads the local runtime file with endpoints', () => {
    const target = parseTargetDescription(
      { kind: 'local', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:4567' }, outputs },
      { kind: 'aws' },
    );
    expect(target.kind).toBe('local');
    expect(target.endpoints.dynamodb).toBe('http://127.0.0.1:4567');
  });

  it("reads the local runtime's identities (the principals its queue policies name), and names a broken one", () => {
    const webShop = {
      accessKeyId: 'web-shop',
      secretAccessKey: 's3cret',
      userArn: 'arn:aws:iam::000000000000:user/web-shop',
    };
    const target = parseTargetDescription(
      { kind: 'local', outputs, identities: { 'web-shop': webShop } },
      { kind: 'aws' },
    );
    expect(target.identities).toEqual({ 'web-shop': webShop });
    expect(parseTargetDescription({ kind: 'local', outputs }, { kind: 'aws' }).identities).toBeUndefined();
    expect(() =>
      parseTargetDescription(
        { kind: 'local', outputs, identities: { 'web-shop': { accessKeyId: 'x' } } },
        { kind: 'aws' },
      ),
    ).toThrow('identities.web-shop needs accessKeyId, secretAccessKey and userArn');
  });

  it('fails naming the missing outputs', () => {
    expect(() =>
      parseTargetDescription({ Stack: { ApiUrl: 'http://localhost' } }, { kind: 'local' }),
    ).toThrow(/missing outputs of SchedulerAgentSupervisor: StateTableName, OrdersTableName/);
  });

  it('fails when several stacks could be meant', () => {
    expect(() => parseTargetDescription({ A: outputs, B: outputs }, { kind: 'aws' })).toThrow(
      /exactly one stack/,
    );
  });

  describe('with both apps deployed', () => {
    const deliveries = Object.fromEntries(
      DELIVERY_OUTPUT_KEYS.map((key) => [key, key === 'ApiUrl' ? 'http://127.0.0.1:3000/d/' : `d-${key}`]),
    );

    it('reads each app from a cdk --outputs-file by its stack name', () => {
      const raw = { SchedulerAgentSupervisor: outputs, DroneDelivery: deliveries };
      expect(parseTargetDescription(raw, { kind: 'aws' }).outputs).toEqual(outputs);
      expect(parseTargetDescription(raw, { kind: 'aws' }, DELIVERIES_APP).outputs).toEqual(deliveries);
    });

    it("reads each app from the local runtime's per-stack outputs, with the stack's own API key", () => {
      const raw = {
        kind: 'local',
        apiKey: 'first',
        outputs: { ...outputs, ...deliveries },
        stackOutputs: { SchedulerAgentSupervisor: outputs, DroneDelivery: deliveries },
        apis: {
          SchedulerAgentSupervisor: { url: outputs.ApiUrl, apiKeys: ['orders-key'] },
          DroneDelivery: { url: 'http://127.0.0.1:3000/d/', apiKeys: ['deliveries-key'] },
        },
      };
      const orders = parseTargetDescription(raw, { kind: 'local' });
      expect(orders.outputs).toEqual(outputs);
      expect(orders.apiKey).toBe('orders-key');
      const drone = parseTargetDescription(raw, { kind: 'local' }, DELIVERIES_APP);
      expect(drone.outputs.ApiUrl).toBe('http://127.0.0.1:3000/d/');
      expect(drone.apiKey).toBe('deliveries-key');
    });

    it("gives an app whose API the local file lists without keys no key, not the base-port API's", () => {
      const raw = {
        kind: 'local',
        apiKey: 'orders-key',
        stackOutputs: { SchedulerAgentSupervisor: outputs, DroneDelivery: deliveries },
        apis: {
          SchedulerAgentSupervisor: { url: outputs.ApiUrl, apiKeys: ['orders-key'] },
          DroneDelivery: { url: 'http://127.0.0.1:3001/d/', apiKeys: [] },
        },
      };
      expect(parseTargetDescription(raw, { kind: 'local' }, DELIVERIES_APP).apiKey).toBeUndefined();
      const { apis: _apis, ...older } = raw;
      expect(parseTargetDescription(older, { kind: 'local' }, DELIVERIES_APP).apiKey).toBe('orders-key');
    });

    it('fails naming the missing outputs of the app asked for', () => {
      expect(() =>
        parseTargetDescription({ SchedulerAgentSupervisor: outputs }, { kind: 'aws' }, DELIVERIES_APP),
      ).toThrow(/missing outputs of DroneDelivery: IngestionTableName/);
    });
  });

  it('refuses a LocalStack target with a remote endpoint', () => {
    const target = parseTargetDescription(
      { outputs: { ...outputs, ApiUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/' } },
      { kind: 'localstack' },
    );
    expect(() => assertAllEndpointsLocal(target)).toThrow(/not local: https:\/\/abc\.execute-api/);
  });

  it.each([
    ['http://localhost:4566', true],
    ['http://127.0.0.1:3000/x', true],
    ['https://abc.execute-api.localhost.localstack.cloud:4566/prod', true],
    ['http://[::1]:4566', true],
    ['http://10.0.0.5:4566', false],
    ['https://dynamodb.us-east-1.amazonaws.com', false],
    ['https://localhost.evil.example.com', false],
    ['not a url', false],
  ])('%s is local: %s', (url, local) => {
    expect(isLoopbackUrl(url)).toBe(local);
  });
});
