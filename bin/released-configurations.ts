/**
 * The deployments whose templates a release is held to (docs/deploy.md, Releasing): each configuration a
 * user deploys that differs from the others in stateful resources, and how to synthesize any
 * configuration the way `cdk deploy` does, in-process and in a second or two.
 *
 * `cdk synth` (bin/app.ts) reads cdk.json's context (the profile and the CDK feature flags, which
 * change resources: DLQ removal policies, Lambda log groups) and sets three contexts of its own:
 * construct path metadata, asset metadata and version reporting. Path metadata changes more than
 * metadata: an API Gateway deployment's logical id hashes the REST API's resource, metadata included.
 * So does this synthesis; it skips what only changes asset hashes, which normalizeTemplate replaces
 * anyway: bundling (no esbuild run), asset staging, the console page's Vite build (a stand-in page).
 * Normalized, its templates equal `npm run synth`'s (checked when this was written: both stacks of
 * `-c demo=true` byte for byte).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import {
  ANALYTICS_REPORTING_ENABLED_CONTEXT,
  ASSET_RESOURCE_METADATA_ENABLED_CONTEXT,
  DISABLE_ASSET_STAGING_CONTEXT,
  PATH_METADATA_ENABLE_CONTEXT,
} from 'aws-cdk-lib/cx-api';
import { contextOf, PlatformContextKey, readFlag } from '../lib/platform/config';
import type { CfnTemplate } from '../lib/release';
import { DownstreamContextKey } from '../lib/scheduler-agent-supervisor/downstream';
import { SasContextKey } from '../lib/scheduler-agent-supervisor/sas-context-key';
import { composeApp } from './compose';

export interface ReleasedConfiguration {
  /** Folder name of its fixtures. */
  readonly name: string;
  /** CDK context on top of cdk.json's, as `-c key=value` gives it. */
  readonly context: Readonly<Record<string, string>>;
  /** Who deploys it, and how it differs in stateful resources. */
  readonly deploys: string;
}

export const RELEASED_CONFIGURATIONS: readonly ReleasedConfiguration[] = [
  {
    name: 'demo',
    context: { [PlatformContextKey.Demo]: 'true' },
    deploys:
      '`cdk deploy -c demo=true` (and `npm run synth`): the fake downstream services and their ledger table',
  },
  {
    name: 'console',
    context: { [PlatformContextKey.Demo]: 'true', [SasContextKey.Console]: 'true' },
    deploys: '`-c demo=true -c console=true`: adds the operator console, its user pool and its two buckets',
  },
  {
    name: 'endpoints',
    context: Object.fromEntries(
      ['inventory', 'payment', 'shipping'].map((service) => [
        DownstreamContextKey.endpoint(service),
        `https://${service}.example.com`,
      ]),
    ),
    deploys:
      'real downstream services (`-c inventoryEndpoint=... -c paymentEndpoint=... -c shippingEndpoint=...`): no fakes, no ledger table',
  },
];

const PROJECT_ROOT = resolve(__dirname, '..');

/** The context `cdk synth` adds of its own (the CLI's defaults). */
const CLI_CONTEXT = {
  [PATH_METADATA_ENABLE_CONTEXT]: true,
  [ASSET_RESOURCE_METADATA_ENABLED_CONTEXT]: true,
  [ANALYTICS_REPORTING_ENABLED_CONTEXT]: true,
};

function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

/** Every stack's template as `cdk synth -c key=value ...` writes it for `context` (not normalized). */
export function synthesizeTemplates(context: Readonly<Record<string, string>>): Map<string, CfnTemplate> {
  const workDir = mkdtempSync(join(tmpdir(), 'released-templates-'));
  try {
    const app = new App({
      outdir: join(workDir, 'cdk.out'),
      builtinCloudFormationValidation: false,
      context: {
        ...cdkJsonContext(),
        ...CLI_CONTEXT,
        ...context,
        'aws:cdk:bundling-stacks': [],
        [DISABLE_ASSET_STAGING_CONTEXT]: true,
      },
    });
    let consoleAssetsDir: string | undefined;
    if (readFlag(contextOf(app.node), SasContextKey.Console)) {
      consoleAssetsDir = join(workDir, 'console');
      mkdirSync(consoleAssetsDir);
      writeFileSync(join(consoleAssetsDir, 'index.html'), '<!doctype html><title>console</title>');
    }
    const { orders, deliveries } = composeApp(app, consoleAssetsDir);
    const assembly = app.synth();
    return new Map(
      [deliveries, orders].map((stack) => [
        stack.stackName,
        assembly.getStackByName(stack.stackName).template as CfnTemplate,
      ]),
    );
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
