import { LOCALSTACK_DEFAULT_ENDPOINT, localStackEnvironment } from '../../acceptance/run-target';

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
