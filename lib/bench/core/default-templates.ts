/**
 * Both stacks' templates as a default-profile deployment with real downstream services synthesizes
 * them (`cdk synth -c inventoryEndpoint=... -c paymentEndpoint=... -c shippingEndpoint=...`), in
 * process and without bundling (a second or two): what the capacity model reads its numbers from
 * (shard counts, event source concurrency, throttles, FIFO settings). No fake is deployed there: a
 * factory that would build one throws.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { DISABLE_ASSET_STAGING_CONTEXT } from 'aws-cdk-lib/cx-api';
import { addDroneDelivery } from '../../choreography/deployment';
import { DEFAULT_PROFILE, PlatformContextKey } from '../../platform/config';
import { addSchedulerAgentSupervisor } from '../../scheduler-agent-supervisor/deployment';
import { DOWNSTREAM_SERVICES, DownstreamContextKey } from '../../scheduler-agent-supervisor/downstream';

/** A template's resources, as the model reads them. */
export type TemplateResources = Readonly<
  Record<string, { readonly Type: string; readonly Properties?: Readonly<Record<string, unknown>> }>
>;

export interface DefaultTemplates {
  readonly orders: TemplateResources;
  readonly deliveries: TemplateResources;
}

function noFake(): never {
  throw new Error('the default profile with real downstream services deploys no fake');
}

export function synthesizeDefaultTemplates(): DefaultTemplates {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-default-templates-'));
  try {
    const app = new App({
      outdir,
      builtinCloudFormationValidation: false,
      context: {
        [PlatformContextKey.Profile]: DEFAULT_PROFILE,
        ...Object.fromEntries(
          DOWNSTREAM_SERVICES.map((service) => [
            DownstreamContextKey.endpoint(service),
            `https://${service}.example.com`,
          ]),
        ),
        'aws:cdk:bundling-stacks': [],
        [DISABLE_ASSET_STAGING_CONTEXT]: true,
      },
    });
    const deliveries = addDroneDelivery(app, noFake);
    const orders = addSchedulerAgentSupervisor(app, noFake);
    const assembly = app.synth();
    const resourcesOf = (stackName: string) =>
      (assembly.getStackByName(stackName).template as { Resources: TemplateResources }).Resources;
    return { orders: resourcesOf(orders.stackName), deliveries: resourcesOf(deliveries.stackName) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
