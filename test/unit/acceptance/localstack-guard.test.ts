import {
  LOCALSTACK_DEFAULT_ENDPOINT,
  localStackEnvironment,
  localStackS3Endpoint,
} from '../../acceptance/run-target';

describe('LocalStack guard', () => {
  it('defaults to the LocalStack endpoint and test credentials', () => {
    const env = localStackEnvironment({ PATH: '/bin' });
    expect(env).toMatchObject({
      AWS_ENDPOINT_URL: LOCALSTACK_DEFAULT_ENDPOINT,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      CDK_DEFAULT_ACCOUNT: '000000000000',
    });
  });

  it('sets the S3 endpoint cdklocal requires next to AWS_ENDPOINT_URL', () => {
    expect(localStackEnvironment({}).AWS_ENDPOINT_URL_S3).toBe('http://s3.localhost.localstack.cloud:4566');
    expect(localStackEnvironment({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:4572' }).AWS_ENDPOINT_URL_S3).toBe(
      'http://127.0.0.1:4572',
    );
  });

  it.each([
    ['http://localhost.localstack.cloud:4566', 'http://s3.localhost.localstack.cloud:4566'],
    ['https://localhost.localstack.cloud:4443', 'https://s3.localhost.localstack.cloud:4443'],
    ['http://127.0.0.1:4566', 'http://s3.localhost.localstack.cloud:4566'],
    ['http://localhost:5000', 'http://s3.localhost.localstack.cloud:5000'],
  ])('derives the S3 endpoint of %s as %s', (edge, s3) => {
    expect(localStackS3Endpoint(edge)).toBe(s3);
  });

  it('keeps the region it was given (cdklocal would otherwise replace it)', () => {
    const env = localStackEnvironment({ AWS_REGION: 'eu-west-1' });
    expect(env).toMatchObject({ AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'eu-west-1' });
    expect(env.AWS_ENVAR_ALLOWLIST?.split(',')).toEqual(
      expect.arrayContaining([
        'AWS_REGION',
        'AWS_DEFAULT_REGION',
        'AWS_ACCESS_KEY_ID',
        'AWS_SECRET_ACCESS_KEY',
      ]),
    );
  });

  it('keeps a local endpoint the user chose', () => {
    expect(localStackEnvironment({ AWS_ENDPOINT_URL: 'http://127.0.0.1:4566' }).AWS_ENDPOINT_URL).toBe(
      'http://127.0.0.1:4566',
    );
  });

  it.each([
    [
      { AWS_ENDPOINT_URL: 'https://sts.amazonaws.com' },
      /AWS_ENDPOINT_URL=https:\/\/sts\.amazonaws\.com is not a local/,
    ],
    [{ AWS_ENDPOINT_URL_S3: 'https://s3.eu-west-1.amazonaws.com' }, /AWS_ENDPOINT_URL_S3=.* is not a local/],
    [{ AWS_PROFILE: 'prod' }, /AWS_PROFILE=prod is set/],
    [{ AWS_SESSION_TOKEN: 'x' }, /AWS_SESSION_TOKEN is set/],
    [{ AWS_ACCESS_KEY_ID: 'AKIAREAL' }, /non-test key/],
    [{ LOCALSTACK_HOSTNAME: 'build-host.example.com' }, /LOCALSTACK_HOSTNAME=.* is not local/],
  ])('refuses %o', (env, message) => {
    expect(() => localStackEnvironment(env)).toThrow(message);
  });

  it('names every problem at once', () => {
    expect(() => localStackEnvironment({ AWS_PROFILE: 'p', AWS_SESSION_TOKEN: 't' })).toThrow(
      /AWS_PROFILE=p[\s\S]*AWS_SESSION_TOKEN/,
    );
  });
});
