import type { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addDroneDelivery } from '../../../lib/choreography/deployment';
import type { DroneDeliveryStack } from '../../../lib/choreography/stack';
import { droneFleetFake } from '../../../lib/fakes/drone-fleet';
import { testApp } from '../support/synth';

export interface SynthesizedDroneDelivery {
  readonly app: App;
  readonly stack: DroneDeliveryStack;
  readonly template: Template;
}

/** The DroneDelivery stack as bin/app.ts builds it from CDK context (no bundling). */
export function synthesizeDroneDelivery(
  context: Readonly<Record<string, string>> = {},
): SynthesizedDroneDelivery {
  const app = testApp(context);
  const stack = addDroneDelivery(app, droneFleetFake);
  return { app, stack, template: Template.fromStack(stack) };
}

/** A template resource, loosely typed: tests read the properties they check. */
export interface Resource {
  readonly Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties as the template holds them
  readonly Properties: Record<string, any>;
  readonly DeletionPolicy?: string;
}

export function resources(template: Template, type: string): Record<string, Resource> {
  return template.findResources(type) as Record<string, Resource>;
}

/** The logical id a `{Ref}` or `{Fn::GetAtt}` names. */
export function refId(value: unknown): string | undefined {
  const record = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] } | undefined;
  return record?.Ref ?? record?.['Fn::GetAtt']?.[0];
}
