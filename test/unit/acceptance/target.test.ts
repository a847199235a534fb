import { assertAllEndpointsLocal, isLoopbackUrl, parseTargetDescription } from '../../acceptance/target';

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

  it('fails naming the missing outputs', () => {
    expect(() =>
      parseTargetDescription({ Stack: { ApiUrl: 'http://localhost' } }, { kind: 'local' }),
    ).toThrow(/missing outputs: StateTableName, OrdersTableName/);
  });

  it('fails when several stacks could be meant', () => {
    expect(() => parseTargetDescription({ A: outputs, B: outputs }, { kind: 'aws' })).toThrow(
      /exactly one stack/,
    );
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
