/**
 * AddPermission and RemovePermission: the SQS API's shorthand for editing a queue's policy, one
 * Allow statement per label naming accounts and actions. They change the queue's `Policy` attribute
 * as SetQueueAttributes would, so a policy that denies them to some principals (sqs:AddPermission,
 * sqs:RemovePermission) guards the policy through every door
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_AddPermission.html).
 */
import { SqsErrors } from './errors';
import type { Body } from './request-values';

/** The actions AddPermission may name (the API reference's list; `*` is every one). */
const SHAREABLE_ACTIONS = [
  '*',
  'SendMessage',
  'ReceiveMessage',
  'DeleteMessage',
  'ChangeMessageVisibility',
  'GetQueueAttributes',
  'GetQueueUrl',
] as const;

const LABEL = /^[A-Za-z0-9_-]{1,80}$/;

interface PolicyDocument {
  Version?: string;
  Id?: string;
  Statement: Array<Record<string, unknown>>;
}

function parsed(policy: string | undefined, queueArn: string): PolicyDocument {
  if (!policy) return { Version: '2012-10-17', Id: `${queueArn}/SQSDefaultPolicy`, Statement: [] };
  const document = JSON.parse(policy) as PolicyDocument & { Statement: unknown };
  const { Statement } = document;
  return {
    ...document,
    Statement: (Array.isArray(Statement) ? Statement : [Statement]) as Array<Record<string, unknown>>,
  };
}

function labelOf(body: Body): string {
  const label = body.Label;
  if (typeof label !== 'string' || label === '') throw SqsErrors.missingParameter('Label');
  if (!LABEL.test(label)) {
    throw SqsErrors.invalidParameterValue(
      `Value ${label} for parameter Label is invalid. Reason: Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length.`,
    );
  }
  return label;
}

function stringsOf(body: Body, parameter: string): string[] {
  const value = body[parameter];
  if (!Array.isArray(value) || value.length === 0) throw SqsErrors.missingParameter(parameter);
  return value.map(String);
}

/** The queue's policy with AddPermission's statement added; throws SQS's error for a bad request. */
export function policyWithPermission(policy: string | undefined, queueArn: string, body: Body): string {
  const label = labelOf(body);
  const accounts = stringsOf(body, 'AWSAccountIds');
  const actions = stringsOf(body, 'Actions');
  for (const account of accounts) {
    if (!/^\d{12}$/.test(account)) {
      throw SqsErrors.invalidParameterValue(
        `Value ${account} for parameter AWSAccountIds is invalid. Reason: An AWS account id is 12 digits.`,
      );
    }
  }
  for (const action of actions) {
    if (!(SHAREABLE_ACTIONS as readonly string[]).includes(action)) {
      throw SqsErrors.invalidParameterValue(
        `Value SQS:${action} for parameter ActionName is invalid. Reason: Only the queue owner is allowed to invoke this action.`,
      );
    }
  }
  const document = parsed(policy, queueArn);
  if (document.Statement.some((statement) => statement.Sid === label)) {
    throw SqsErrors.invalidParameterValue(
      `Value ${label} for parameter Label is invalid. Reason: Already exists.`,
    );
  }
  const principals = accounts.map((account) => `arn:aws:iam::${account}:root`);
  const named = actions.map((action) => `SQS:${action}`);
  document.Statement.push({
    Sid: label,
    Effect: 'Allow',
    Principal: { AWS: principals.length === 1 ? principals[0] : principals },
    Action: named.length === 1 ? named[0] : named,
    Resource: queueArn,
  });
  return JSON.stringify(document);
}

/**
 * The queue's policy without the statement RemovePermission's label names (empty when it was the
 * last); throws SQS's error when no statement has the label.
 */
export function policyWithoutPermission(policy: string | undefined, queueArn: string, body: Body): string {
  const label = labelOf(body);
  const document = parsed(policy, queueArn);
  const kept = document.Statement.filter((statement) => statement.Sid !== label);
  if (kept.length === document.Statement.length) {
    throw SqsErrors.invalidParameterValue(
      `Value ${label} for parameter Label is invalid. Reason: can't find label on existing policy.`,
    );
  }
  return kept.length === 0 ? '' : JSON.stringify({ ...document, Statement: kept });
}
