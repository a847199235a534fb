/**
 * The one way lambdas/ turns JSON text (an API body, an SQS message body, a JSON environment
 * variable) into a typed value: JSON.parse, a strict scan that refuses duplicate keys (JSON.parse
 * keeps the last one silently, so `{"sku":"a","sku":"b"}` would be read as something the sender
 * may not have meant), then the Powertools parser's `parse` in safe mode, with the problems mapped
 * by fieldErrorsFromIssues so every caller reports them the same way (`items[0].quantity: …`,
 * "is required", one entry per unknown field).
 *
 * Text that is not JSON is reported with a FIXED message in `errors` (what a 400 shows): the JSON
 * parser's own message quotes part of the text, so it goes to `summary` only (logs and thrown
 * configuration errors, never a response body).
 *
 * It parses one text at a time on purpose. The SQS envelope (and the batch processor's parser
 * option) parse a whole batch, so a bad record would either fail the batch or be reported where the
 * record handler never sees it; parsing each record's body inside the record handler keeps the
 * partial batch response and the per-record log line.
 */
import { parse } from '@aws-lambda-powertools/parser';
import type * as z from 'zod';
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
  const prefix = paths.prefix ?? [];
  return (text) => {
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (error) {
      return {
        ok: false,
        problem: 'not-json',
        errors: [{ path: formatIssuePath(prefix, paths.rootLabel), message: NOT_JSON_MESSAGE }],
        summary: (error as Error).message,
      };
    }
    const duplicate = findDuplicateKey(text);
    if (duplicate) {
      const errors = [
        {
          path: formatIssuePath([...prefix, ...duplicate.path, duplicate.key], paths.rootLabel),
          message: duplicateKeyMessage(duplicate.key),
        },
      ];
      return { ok: false, problem: 'invalid', errors, summary: describeFieldErrors(errors) };
    }
    const result = parse(input, undefined, schema, true);
    if (result.success) {
      return { ok: true, value: result.data as z.output<S> };
    }
    const errors = fieldErrorsFromIssues(issuesOf(result.error), input, paths);
    return { ok: false, problem: 'invalid', errors, summary: describeFieldErrors(errors) };
  };
}

/** What a caller is told about text that is not JSON: fixed, it quotes nothing of the text. */
export const NOT_JSON_MESSAGE = 'must be valid JSON';

export const duplicateKeyMessage = (key: string) =>
  `is a duplicate key: ${JSON.stringify(key)} appears more than once in the same object`;

/** A key that appears twice in one object: where the object is, and the key (decoded). */
export interface DuplicateKey {
  /** Path of the object holding the key (`[]`: the top-level object). */
  readonly path: readonly PropertyKey[];
  readonly key: string;
}

interface Frame {
  /** The keys seen so far (objects), undefined for arrays. */
  readonly keys: Set<string> | undefined;
  /** This value's place in its parent: a key or an index (undefined at the top). */
  readonly label: PropertyKey | undefined;
  expectKey: boolean;
  lastKey: string;
  index: number;
}

/**
 * The first key that appears twice in one object of `text`, or undefined. `text` must be valid
 * JSON (call after JSON.parse succeeded): the scan only tracks strings and brackets. Keys are
 * compared decoded, so `"s\u006bu"` and `"sku"` are the same key, as JSON.parse sees them. An
 * explicit stack, not recursion: a deeply nested body cannot overflow the call stack.
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  const labelForChild = (parent: Frame | undefined): PropertyKey | undefined =>
    parent === undefined ? undefined : parent.keys ? parent.lastKey : parent.index;
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    const top = stack[stack.length - 1];
    if (char === '"') {
      const end = endOfString(text, i);
      if (top?.keys && top.expectKey) {
        const raw = text.slice(i, end + 1);
        const key: string = raw.includes('\\') ? JSON.parse(raw) : raw.slice(1, -1);
        if (top.keys.has(key)) {
          return { path: stack.slice(1).map((frame) => frame.label as PropertyKey), key };
        }
        top.keys.add(key);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (char === '{' || char === '[') {
      stack.push({
        keys: char === '{' ? new Set() : undefined,
        label: labelForChild(top),
        expectKey: char === '{',
        lastKey: '',
        index: 0,
      });
    } else if (char === '}' || char === ']') {
      stack.pop();
    } else if (char === ',' && top) {
      if (top.keys) top.expectKey = true;
      else top.index += 1;
    }
    i += 1;
  }
  return undefined;
}

/** Index of the quote closing the string that opens at `start`. */
function endOfString(text: string, start: number): number {
  let j = start + 1;
  while (j < text.length && text[j] !== '"') {
    j += text[j] === '\\' ? 2 : 1;
  }
  return j;
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
