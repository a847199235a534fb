/**
 * The LocalStack target must start: `npm run test:localstack` hands cdklocal the environment built by
 * localStackEnvironment, and cdklocal checks it before doing anything (aws-cdk-local 3.0.4 refuses
 * AWS_ENDPOINT_URL without AWS_ENDPOINT_URL_S3). These tests run cdklocal's own checks on that
 * environment, offline: the endpoints point at a loopback listener that records any connection,
 * and none may arrive.
 */
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { localStackEnvironment } from '../../acceptance/run-target';

const PROJECT_ROOT = resolve(__dirname, '../../..');

// aws-cdk-local ships no types; this is its module of environment checks, used by its binary.
const { configureEnvironment } = require('aws-cdk-local/src') as {
  configureEnvironment(env: NodeJS.ProcessEnv, allowList: string): void;
};

describe('cdklocal accepts the LocalStack environment', () => {
  let listener: Server;
  let connections = 0;
  let edge: string;

  beforeAll(async () => {
    listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    edge = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => listener.close(() => done())));

  const baseEnvironment = (): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_ENDPOINT_URL: edge,
    AWS_REGION: 'eu-west-1',
  });

  it("passes cdklocal's own checks and keeps our region, credentials and endpoints", () => {
    const env = localStackEnvironment(baseEnvironment());
    const checked = { ...env };
    configureEnvironment(checked, env.AWS_ENVAR_ALLOWLIST ?? '');
    expect(checked).toMatchObject({
      AWS_ENDPOINT_URL: edge,
      AWS_ENDPOINT_URL_S3: `http://s3.localhost.localstack.cloud:${new URL(edge).port}`,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
    });
  });

  it('runs the real cdklocal binary past its environment checks without contacting anything', () => {
    const result = spawnSync('npx', ['cdklocal', '--help'], {
      cwd: PROJECT_ROOT,
      env: localStackEnvironment(baseEnvironment()),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.stderr).not.toMatch(/EnvironmentMisconfigurationError|must be specified/);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/cdklocal deploy/);
    expect(connections).toBe(0);
  });

  it('fails the same way the broken target did when AWS_ENDPOINT_URL_S3 is missing (the check is live)', () => {
    const { AWS_ENDPOINT_URL_S3: _dropped, ...withoutS3 } = localStackEnvironment(baseEnvironment());
    const result = spawnSync('npx', ['cdklocal', '--help'], {
      cwd: PROJECT_ROOT,
      env: withoutS3,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/'AWS_ENDPOINT_URL_S3' must be specified/);
  });
});
