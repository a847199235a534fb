/**
 * The one way lambdas/ turns JSON text (an API body, an SQS message body, a JSON environment
 * variable) into a typed value: the Powertools parser's `parse` in safe mode, with its
 * `JSONStringified` helper doing the JSON step inside the schema, and the problems mapped by
 * fieldErrorsFromIssues so every caller reports them the same way (`items[0].quantity: …`,
 * "is required", one entry per unknown field).
 *
 * It parses one text at a time on purpose. The SQS envelope (and the batch processor's parser
 * option) parse a whole batch, so a bad record would either fail the batch or be reported where the
 * record handler never sees it; parsing each record's body inside the record handler keeps the
 * partial batch response and the per-record log line.
 */
import { parse } from '@aws-lambda-powertools/parser';
import { JSONStringified } from '@aws-lambda-powertools/parser/helpers';
import type { z } from 'zod';
import {
  describeFieldErrors,
  type FieldError,
  fieldErrorsFromIssues,
  formatIssuePath,
  type IssuePathOptions,
  type ValidationIssue,
} from './validation';

export type ParseOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      /** 'not-json': the text is not JSON at all; 'invalid': JSON that does not fit the schema. */
      readonly problem: 'not-json' | 'invalid';
      readonly errors: readonly FieldError[];
      /** One line for logs and thrown errors: the JSON error, or `path: message; …`. */
      readonly summary: string;
    };

export type JsonParser<T> = (text: string) => ParseOutcome<T>;

/**
 * A parser of JSON text for one schema, built once per module (like the schema itself).
 * @param paths how problem paths are shown (see IssuePathOptions)
 */
export function jsonParser<S extends z.ZodType>(
  schema: S,
  paths: IssuePathOptions = {},
): JsonParser<z.output<S>> {
  const fromJsonText = JSONStringified(schema);
  return (text) => {
    const result = parse(text, undefined, fromJsonText, true);
    if (result.success) {
      return { ok: true, value: result.data };
    }
    // JSONStringified reports bad JSON as one issue worded by Powertools. Parsing again, on this
    // failure path only, tells "not JSON" from "wrong shape" without depending on that wording, and
    // gives fieldErrorsFromIssues the input it needs to say "is required" for a missing field.
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (error) {
      const detail = (error as Error).message;
      return {
        ok: false,
        problem: 'not-json',
        errors: [
          {
            path: formatIssuePath(paths.prefix ?? [], paths.rootLabel),
            message: `must be valid JSON (${detail})`,
          },
        ],
        summary: detail,
      };
    }
    const errors = fieldErrorsFromIssues(issuesOf(result.error), input, paths);
    return { ok: false, problem: 'invalid', errors, summary: describeFieldErrors(errors) };
  };
}

/**
 * The issues a Powertools ParseError carries as its cause (Standard Schema issues; zod's also have
 * a code), in the shape fieldErrorsFromIssues reads.
 */
function issuesOf(error: Error): ValidationIssue[] {
  const cause: unknown = error.cause;
  if (!Array.isArray(cause)) {
    return [{ code: 'custom', path: [], message: error.message }];
  }
  return cause.map((issue: StandardIssue) => ({
    code: typeof issue.code === 'string' ? issue.code : 'custom',
    path: (issue.path ?? []).map((segment) =>
      typeof segment === 'object' && segment !== null ? segment.key : segment,
    ),
    message: issue.message,
    ...(Array.isArray(issue.keys) && { keys: issue.keys.map(String) }),
  }));
}

interface StandardIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[];
  readonly code?: unknown;
  readonly keys?: unknown;
}
