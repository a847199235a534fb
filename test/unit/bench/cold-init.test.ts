import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bareKeyOf,
  sdkModulesLoadedAtColdStart,
  tracedEnvironment,
} from '../../../lib/bench/figures/cold-init';
import { bundleLikeLambdaFunction, sdkModulesOf } from '../../../lib/bench/figures/functions';
import { PROJECT_ROOT } from '../../../lib/local-runtime';

describe('figure functions: what a cold start loads', () => {
  it('counts the SDK modules a bundle requires while it loads, not those required on first use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cold-init-'));
    try {
      writeFileSync(
        join(dir, 'handler.ts'),
        [
          "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
          'export const client = new DynamoDBClient({});',
          '// Made on first use: its require runs in the handler, not at load.',
          "export const handler = async () => new (require('@aws-sdk/client-sqs').SQSClient)({});",
          '',
        ].join('\n'),
      );
      const outfile = join(dir, 'index.js');
      await bundleLikeLambdaFunction(join(dir, 'handler.ts'), outfile);
      // Both are in the bundle's text; only one is loaded by its cold start.
      expect(sdkModulesOf(readFileSync(outfile, 'utf8'))).toEqual([
        '@aws-sdk/client-dynamodb',
        '@aws-sdk/client-sqs',
      ]);
      const environment = { NODE_PATH: join(PROJECT_ROOT, 'node_modules'), AWS_REGION: 'us-east-1' };
      await expect(sdkModulesLoadedAtColdStart(outfile, environment)).resolves.toEqual([
        '@aws-sdk/client-dynamodb',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a bundle that fails to load, with its error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cold-init-'));
    try {
      const file = join(dir, 'index.js');
      writeFileSync(file, "throw new Error('Missing required environment variable STATE_TABLE_NAME');\n");
      await expect(sdkModulesLoadedAtColdStart(file, {})).rejects.toThrow(
        /requiring .*index\.js failed: .*Missing required environment variable STATE_TABLE_NAME/s,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keys a bare handler by the modules it imports, so bundles loading the same ones share it', () => {
    expect(bareKeyOf(['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'])).toBe(
      'init.bare.client-dynamodb+lib-dynamodb',
    );
    expect(bareKeyOf([])).toBe('init.bare.nothing');
  });

  it("times a function with tracing on as the default profile runs it: the local profile's switch removed", () => {
    const local = { POWERTOOLS_TRACE_ENABLED: 'false', AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' };
    expect(tracedEnvironment(local)).toEqual({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' });
    expect(local.POWERTOOLS_TRACE_ENABLED).toBe('false');
    // Already traced: its own init is the traced one, nothing to time twice.
    expect(tracedEnvironment({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' })).toBeUndefined();
  });
});
