import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CLIENT_NAME_PATTERN } from '../../lambdas/scheduler-agent-supervisor/contracts';
import { createSecureQueue, createTerminalQueue, DEAD_LETTER_RETENTION } from '../platform/work-queue';
import type { ClientConfig } from './config';

/**
 * An IAM role or user ARN, in any partition; `{account}` stands for the stack's account. Roles are
 * what `aws:PrincipalArn` holds for an assumed-role session, so a client's code running under a
 * role is that role here.
 */
const PRINCIPAL_PATTERN =
  /^arn:aws(-[a-z]+)*:iam::(\d{12}|\{account\}):(role|user)\/[A-Za-z0-9+=,.@_/-]{1,512}$/;

/**
 * How long a status waits for its client. Clients poll; one that is down for a weekend must still
 * find every status, so the longest retention SQS allows.
 */
export const REPLY_RETENTION = DEAD_LETTER_RETENTION;

/**
 * Receives of one message before SQS moves it to the client's dead-letter queue: a message the
 * client keeps failing on would otherwise block the order's later statuses (one FIFO group per
 * order) until it expires.
 */
export const REPLY_MAX_RECEIVE_COUNT = 10;

/** The actions only the client may take on its queues: what reads and consumes messages. */
export const CLIENT_ONLY_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
] as const;

export interface ClientReplyQueue {
  /** The client's name: its ClientId. */
  readonly name: string;
  /** The principal allowed to read (its `{account}` replaced). */
  readonly principal: string;
  readonly queue: sqs.Queue;
  /** Where a message the client failed REPLY_MAX_RECEIVE_COUNT times goes; the client reads it too. */
  readonly deadLetterQueue: sqs.Queue;
}

export interface ClientReplyQueuesProps {
  /** The client applications (config `clients`): at least one, names unique. */
  readonly clients: readonly ClientConfig[];
}

/**
 * One FIFO reply queue per client (and its FIFO dead-letter queue), SSE-SQS and TLS-only, whose
 * resource policy denies receive, delete and change-visibility to every principal but the client's
 * (an explicit Deny, so no identity policy in the account can grant them) and allows them to the
 * client's principal (which may live in another account). Senders (the status notifier) are granted
 * SendMessage by their own identity policy.
 */
export class ClientReplyQueues extends Construct {
  readonly clients: readonly ClientReplyQueue[];

  constructor(scope: Construct, id: string, props: ClientReplyQueuesProps) {
    super(scope, id);
    validateClients(this.node.path, props.clients);
    const account = Stack.of(this).account;
    this.clients = props.clients.map((client) => {
      const principal = client.principal.replace('{account}', account);
      const group = new Construct(this, client.name);
      const deadLetterQueue = createTerminalQueue(
        group,
        'DeadLetterQueue',
        `Dead-letter queue of the ${client.name} reply queue: read by that client, nothing consumes it automatically.`,
        { fifo: true },
      );
      const queue = createSecureQueue(group, 'Queue', {
        fifo: true,
        retentionPeriod: REPLY_RETENTION,
        // Clients set their own visibility per receive; this is the default for one that does not.
        visibilityTimeout: Duration.seconds(30),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: REPLY_MAX_RECEIVE_COUNT },
      });
      for (const target of [queue, deadLetterQueue]) restrictToClient(target, principal);
      return { name: client.name, principal, queue, deadLetterQueue };
    });
  }
}

function restrictToClient(queue: sqs.Queue, principal: string): void {
  queue.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'OnlyTheClientConsumes',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: [...CLIENT_ONLY_ACTIONS],
      resources: [queue.queueArn],
      conditions: { ArnNotEquals: { 'aws:PrincipalArn': principal } },
    }),
  );
  queue.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'TheClientConsumes',
      effect: iam.Effect.ALLOW,
      principals: [new iam.ArnPrincipal(principal)],
      actions: [...CLIENT_ONLY_ACTIONS, 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
      resources: [queue.queueArn],
    }),
  );
}

/** Throws naming every client at fault and why. */
export function validateClients(where: string, clients: readonly ClientConfig[]): void {
  const problems: string[] = [];
  if (clients.length === 0) problems.push('at least one client is required (the API has no other key)');
  const seen = new Set<string>();
  for (const [index, client] of clients.entries()) {
    const label = `clients[${index}] '${client.name}'`;
    if (!CLIENT_NAME_PATTERN.test(client.name)) {
      problems.push(
        `${label}: the name must be 3-32 characters of a-z, 0-9 and '-', starting with a letter and not ending with '-'`,
      );
    }
    if (seen.has(client.name)) problems.push(`${label}: the name appears twice`);
    seen.add(client.name);
    if (!PRINCIPAL_PATTERN.test(client.principal)) {
      problems.push(
        `${label}: principal '${client.principal}' is not an IAM role or user ARN (arn:aws:iam::<account or {account}>:role/<name> or :user/<name>)`,
      );
    }
  }
  if (problems.length > 0) throw new Error(`ClientReplyQueues ${where}: ${problems.join('; ')}`);
}
