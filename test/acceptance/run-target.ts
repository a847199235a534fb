/**
 * Runs the acceptance suite against LocalStack or a real AWS deployment.
 *
 *   npm run test:localstack            cdklocal bootstrap + deploy (profile local), then the suite
 *   npm run test:aws -- --outputs F    the suite against a deployment named by its outputs file
 *
 * LocalStack: refuses to run unless every endpoint is local and the credentials are LocalStack's
 * test credentials, because `cdklocal bootstrap` with a stray endpoint or profile reaches a real
 * account.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { APIGatewayClient, GetApiKeyCommand } from '@aws-sdk/client-api-gateway';
import {
  type AppUnderTest,
  DELIVERIES_APP,
  isLoopbackUrl,
  loadTargetDescription,
  ORDERS_APP,
} from './target';

export const LOCALSTACK_DEFAULT_ENDPOINT = 'http://localhost.localstack.cloud:4566';

/**
 * The environment for cdklocal and the suite, or an error naming every reason it is unsafe.
 * Variables that could route a call to a real account (profiles, session tokens, non-local
 * endpoints) are refused rather than silently dropped, so the user learns what was wrong.
 */
export function localStackEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const problems: string[] = [];
  const endpoint = env.AWS_ENDPOINT_URL ?? LOCALSTACK_DEFAULT_ENDPOINT;
  for (const [key, value] of Object.entries(env)) {
    if (
      (key === 'AWS_ENDPOINT_URL' || key.startsWith('AWS_ENDPOINT_URL_')) &&
      value &&
      !isLoopbackUrl(value)
    ) {
      problems.push(`${key}=${value} is not a local endpoint`);
    }
  }
  if (env.LOCALSTACK_HOSTNAME && !isLoopbackUrl(`http://${env.LOCALSTACK_HOSTNAME}`)) {
    problems.push(`LOCALSTACK_HOSTNAME=${env.LOCALSTACK_HOSTNAME} is not local`);
  }
  if (env.AWS_PROFILE)
    problems.push(`AWS_PROFILE=${env.AWS_PROFILE} is set (unset it: LocalStack needs no profile)`);
  if (env.AWS_SESSION_TOKEN) problems.push('AWS_SESSION_TOKEN is set (real session credentials)');
  if (env.AWS_ACCESS_KEY_ID && env.AWS_ACCESS_KEY_ID !== 'test') {
    problems.push(`AWS_ACCESS_KEY_ID is set to a non-test key (LocalStack uses "test")`);
  }
  if (problems.length > 0) {
    throw new Error(`Refusing to deploy to LocalStack:\n  - ${problems.join('\n  - ')}`);
  }
  const region = env.AWS_REGION ?? 'us-east-1';
  return {
    ...env,
    AWS_ENDPOINT_URL: endpoint,
    // cdklocal refuses AWS_ENDPOINT_URL without AWS_ENDPOINT_URL_S3: S3 must be reached through a
    // host whose subdomains resolve (bucket-style addressing), which an IP address never does.
    AWS_ENDPOINT_URL_S3: env.AWS_ENDPOINT_URL_S3 ?? localStackS3Endpoint(endpoint),
    // cdklocal drops every AWS_* variable that is not on this list (except the endpoints) and
    // puts its own defaults in their place; keep the region and the test credentials chosen here.
    AWS_ENVAR_ALLOWLIST: 'AWS_REGION,AWS_DEFAULT_REGION,AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    CDK_DEFAULT_ACCOUNT: '000000000000',
    CDK_DEFAULT_REGION: region,
  };
}

/**
 * LocalStack's S3 endpoint for a given edge endpoint: `s3.` in front of a LocalStack host name
 * (localhost.localstack.cloud and its subdomains resolve to 127.0.0.1), and LocalStack's own S3 host
 * on the same port when the edge is a bare loopback name or address.
 */
export function localStackS3Endpoint(edgeEndpoint: string): string {
  const url = new URL(edgeEndpoint);
  const host = url.hostname.endsWith('localhost.localstack.cloud')
    ? `s3.${url.hostname.replace(/^s3\./, '')}`
    : 's3.localhost.localstack.cloud';
  return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`;
}

async function apiKeyValue(
  outputsFile: string,
  env: NodeJS.ProcessEnv,
  kind: 'aws' | 'localstack',
  app: AppUnderTest = ORDERS_APP,
): Promise<string> {
  const given = env[app.apiKeyEnv];
  if (given) return given;
  const target = loadTargetDescription(outputsFile, { kind }, app);
  const apiKeyId = target.outputs.ApiKeyId;
  if (!apiKeyId) throw new Error(`The outputs of ${app.stackName} have no ApiKeyId: set ${app.apiKeyEnv}`);
  const client = new APIGatewayClient({
    region: env.AWS_REGION ?? target.region,
    ...(kind === 'localstack' ? { endpoint: env.AWS_ENDPOINT_URL } : {}),
  });
  const { value } = await client.send(new GetApiKeyCommand({ apiKey: apiKeyId, includeValue: true }));
  if (!value) throw new Error(`API key ${apiKeyId} has no value`);
  return value;
}

/**
 * The API key of each app the outputs file describes, as the suites read them from the environment.
 * An app the deployment lacks gets no key (its suite then fails naming its missing outputs).
 */
async function apiKeys(
  outputsFile: string,
  env: NodeJS.ProcessEnv,
  kind: 'aws' | 'localstack',
): Promise<Record<string, string>> {
  const keys: Record<string, string> = {};
  for (const app of [ORDERS_APP, DELIVERIES_APP]) {
    try {
      keys[app.apiKeyEnv] = await apiKeyValue(outputsFile, env, kind, app);
    } catch (error) {
      if (!/missing outputs/.test((error as Error).message)) throw error;
    }
  }
  return keys;
}

function runSuite(env: NodeJS.ProcessEnv): number {
  const result = spawnSync('npx', ['jest', '--selectProjects', 'acceptance', '--runInBand'], {
    stdio: 'inherit',
    env,
  });
  return result.status ?? 1;
}

async function main(argv: string[]): Promise<number> {
  const mode = argv[0];
  const outputsIndex = argv.indexOf('--outputs');
  const root = resolve(__dirname, '../..');
  if (mode === 'localstack') {
    const env = localStackEnvironment(process.env);
    const health = await fetch(`${env.AWS_ENDPOINT_URL}/_localstack/health`).catch((error: Error) => error);
    if (health instanceof Error || !health.ok) {
      throw new Error(
        `LocalStack is not reachable at ${env.AWS_ENDPOINT_URL} (start it with \`localstack start\`; it needs Docker).`,
      );
    }
    mkdirSync(resolve(root, '.local'), { recursive: true });
    const outputs = resolve(root, '.local/localstack-outputs.json');
    const cdklocal = (args: string[]) =>
      execFileSync('npx', ['cdklocal', ...args, '-c', 'profile=local'], { cwd: root, env, stdio: 'inherit' });
    cdklocal(['bootstrap']);
    cdklocal(['deploy', '--require-approval', 'never', '--outputs-file', outputs]);
    return runSuite({
      ...env,
      ACCEPTANCE_TARGET: outputs,
      ACCEPTANCE_KIND: 'localstack',
      ACCEPTANCE_PROFILE: 'local',
      ...(await apiKeys(outputs, env, 'localstack')),
    });
  }
  if (mode === 'aws') {
    const outputs = outputsIndex >= 0 ? argv[outputsIndex + 1] : process.env.ACCEPTANCE_TARGET;
    if (!outputs) throw new Error('Name the deployment: npm run test:aws -- --outputs cdk-outputs.json');
    return runSuite({
      ...process.env,
      ACCEPTANCE_TARGET: resolve(outputs),
      ACCEPTANCE_KIND: 'aws',
      ACCEPTANCE_PROFILE: process.env.ACCEPTANCE_PROFILE ?? 'default',
      ...(await apiKeys(outputs, process.env, 'aws')),
    });
  }
  throw new Error('Usage: run-target.ts localstack | aws --outputs FILE');
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: Error) => {
      console.error(error.message);
      process.exit(2);
    },
  );
}
