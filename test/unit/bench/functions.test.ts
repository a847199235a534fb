import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bareHandlerSource,
  bundleLikeLambdaFunction,
  handlerEntryOf,
  sdkModulesOf,
} from '../../../lib/bench/figures/functions';
import { PROJECT_ROOT } from '../../../lib/local-runtime';

describe('figure functions: reading a bundle', () => {
  it("names a bundle after the one handler entry its source map lists, as LambdaFunction's handler prop does", () => {
    expect(
      handlerEntryOf([
        '../../../../node_modules/zod/v4/core/schemas.js',
        '../../../../lambdas/shared/parse.ts',
        '../../../../lambdas/scheduler-agent-supervisor/handlers/agent.ts',
      ]),
    ).toBe('scheduler-agent-supervisor/handlers/agent');
  });

  it('names none when the map lists no handler entry, or several', () => {
    expect(handlerEntryOf(['../../node_modules/x/index.js'])).toBeUndefined();
    expect(
      handlerEntryOf(['lambdas/fakes/handlers/drone-fleet.ts', 'lambdas/fakes/handlers/remote-service.ts']),
    ).toBeUndefined();
  });

  it('finds the external SDK modules a minified bundle requires, once each, sorted', () => {
    const code =
      'var a=require("@aws-sdk/client-sqs"),b=require("node:fs");var c=require("@aws-sdk/client-dynamodb");' +
      'var d=require("@aws-sdk/client-sqs");var e=require("@aws-sdkx/other");';
    expect(sdkModulesOf(code)).toEqual(['@aws-sdk/client-dynamodb', '@aws-sdk/client-sqs']);
  });

  it('writes a bare handler that imports the given modules and nothing else', () => {
    const source = bareHandlerSource(['@aws-sdk/client-dynamodb', '@aws-sdk/client-sqs']);
    const imports = source.split('\n').filter((line) => line.startsWith('import'));
    expect(imports).toEqual(["import '@aws-sdk/client-dynamodb';", "import '@aws-sdk/client-sqs';"]);
    expect(source).toContain('export const handler = async () => ({});');
  });
});

describe('figure functions: what a bundle loads', () => {
  it('bundles a handler with only the SDK clients it uses (one module per client in lambdas/shared/aws-clients)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    try {
      const outfile = join(dir, 'index.js');
      // get-order reads the state table and nothing else: no SQS, SNS, SFN or EventBridge client.
      await bundleLikeLambdaFunction(
        join(PROJECT_ROOT, 'lambdas/scheduler-agent-supervisor/handlers/get-order.ts'),
        outfile,
      );
      const clients = sdkModulesOf(readFileSync(outfile, 'utf8')).filter((name) =>
        name.startsWith('@aws-sdk/client-'),
      );
      expect(clients).toEqual(['@aws-sdk/client-dynamodb']);
      // The map names the sources (stack traces, the composition) without their text, which
      // --enable-source-maps would otherwise parse at every cold start.
      const map = JSON.parse(readFileSync(`${outfile}.map`, 'utf8')) as {
        sources: string[];
        sourcesContent?: unknown;
      };
      expect(map.sources.some((source) => source.endsWith('handlers/get-order.ts'))).toBe(true);
      expect(map.sourcesContent).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bundles the SDK too when asked (the alternative the figure times): no SDK client require is left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    try {
      const outfile = join(dir, 'index.js');
      await bundleLikeLambdaFunction(
        join(PROJECT_ROOT, 'lambdas/scheduler-agent-supervisor/handlers/get-order.ts'),
        outfile,
        { bundleSdk: true },
      );
      // Only optional requires the SDK wraps in try/catch (e.g. @aws-sdk/signature-v4-crt) remain.
      expect(
        sdkModulesOf(readFileSync(outfile, 'utf8')).filter((name) => name.startsWith('@aws-sdk/client-')),
      ).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
