/**
 * Reads an Amazon States Language definition as CloudFormation holds it (a string, or an
 * `Fn::Join` of strings and intrinsics) so guardrails and tests can inspect it state by state.
 * Intrinsics become readable placeholders (`{{Ref:Table1234}}`, `{{GetAtt:Queue1234.Arn}}`);
 * they only ever occur inside JSON strings in the definitions CDK renders.
 */

/** One ASL state, loosely typed: guardrails and tests read the fields they care about. */
export interface AslState {
  readonly Type: string;
  readonly Resource?: string;
  readonly Next?: string;
  readonly End?: boolean;
  readonly TimeoutSeconds?: number;
  readonly HeartbeatSeconds?: number;
  readonly Parameters?: Record<string, unknown>;
  readonly ResultPath?: string | null;
  readonly Retry?: readonly { readonly ErrorEquals: readonly string[]; readonly MaxAttempts?: number }[];
  readonly Catch?: readonly {
    readonly ErrorEquals: readonly string[];
    readonly Next: string;
    readonly ResultPath?: string;
  }[];
  readonly Choices?: readonly Record<string, unknown>[];
  readonly Default?: string;
  readonly Branches?: readonly AslDefinition[];
  readonly Iterator?: AslDefinition;
  readonly ItemProcessor?: AslDefinition;
  readonly [field: string]: unknown;
}

export interface AslDefinition {
  readonly StartAt: string;
  readonly States: Readonly<Record<string, AslState>>;
  readonly Comment?: string;
  readonly TimeoutSeconds?: number;
  readonly QueryLanguage?: string;
}

/** Renders a resolved CloudFormation string value (string or Fn::Join) with intrinsics as placeholders. */
export function renderCfnString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isObject(value)) {
    const join = value['Fn::Join'];
    if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
      return (join[1] as unknown[]).map(renderCfnString).join(join[0]);
    }
    if (typeof value.Ref === 'string') return `{{Ref:${value.Ref}}}`;
    const getAtt = value['Fn::GetAtt'];
    if (Array.isArray(getAtt)) return `{{GetAtt:${getAtt.join('.')}}}`;
    const [intrinsic] = Object.keys(value);
    return `{{${intrinsic ?? 'Intrinsic'}}}`;
  }
  throw new Error(`Cannot render CloudFormation value ${JSON.stringify(value)} as a string`);
}

/** Parses a resolved `DefinitionString` into an ASL document. */
export function parseDefinition(definitionString: unknown): AslDefinition {
  const text = renderCfnString(definitionString);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `State machine definition is not JSON once intrinsics are replaced: ${(error as Error).message}`,
    );
  }
  if (!isObject(parsed) || typeof parsed.StartAt !== 'string' || !isObject(parsed.States)) {
    throw new Error('State machine definition has no StartAt/States');
  }
  return parsed as unknown as AslDefinition;
}

/** Every state of the definition, nested ones (Parallel branches, Map processors) included. */
export function allStates(definition: AslDefinition): Map<string, AslState> {
  const states = new Map<string, AslState>();
  const visit = (graph: AslDefinition): void => {
    for (const [name, state] of Object.entries(graph.States)) {
      states.set(name, state);
      for (const branch of state.Branches ?? []) visit(branch);
      if (state.Iterator) visit(state.Iterator);
      if (state.ItemProcessor) visit(state.ItemProcessor);
    }
  };
  visit(definition);
  return states;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
