import * as eventschemas from 'aws-cdk-lib/aws-eventschemas';
import { Construct } from 'constructs';

/** One schema of the registry. */
export interface RegistrySchema {
  /** Schema name, unique in the registry (letters, digits, `.`, `-`, `_`, `@`). */
  readonly name: string;
  readonly description: string;
  /** The JSON Schema document (draft-04). */
  readonly content: Readonly<Record<string, unknown>>;
}

export interface EventSchemaRegistryProps {
  /** What it is, for the console and the template. */
  readonly description: string;
  /** At least one schema, names unique. */
  readonly schemas: readonly RegistrySchema[];
}

const SCHEMA_NAME_PATTERN = /^[A-Za-z0-9@._-]{1,385}$/;

/**
 * An EventBridge schema registry holding the given JSON Schemas (Type JSONSchemaDraft4), so
 * consumers the choreography does not know can discover and generate bindings for its events.
 */
export class EventSchemaRegistry extends Construct {
  readonly registry: eventschemas.CfnRegistry;
  readonly schemas: readonly eventschemas.CfnSchema[];

  constructor(scope: Construct, id: string, props: EventSchemaRegistryProps) {
    super(scope, id);
    const names = props.schemas.map((schema) => schema.name);
    const bad = names.filter(
      (name, index) => !SCHEMA_NAME_PATTERN.test(name) || names.indexOf(name) !== index,
    );
    if (names.length === 0 || bad.length > 0) {
      throw new Error(
        `EventSchemaRegistry ${this.node.path}: needs one or more schemas with valid, unique names${bad.length > 0 ? `; bad or repeated: ${bad.join(', ')}` : ''}`,
      );
    }
    this.registry = new eventschemas.CfnRegistry(this, 'Registry', { description: props.description });
    this.schemas = props.schemas.map(
      (schema) =>
        new eventschemas.CfnSchema(this, schema.name.replace(/[^A-Za-z0-9]/g, ''), {
          registryName: this.registry.attrRegistryName,
          schemaName: schema.name,
          type: 'JSONSchemaDraft4',
          description: schema.description,
          content: JSON.stringify(schema.content),
        }),
    );
  }

  get registryName(): string {
    return this.registry.attrRegistryName;
  }
}
