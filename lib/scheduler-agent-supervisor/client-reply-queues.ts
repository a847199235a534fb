import { Annotations, DefaultStackSynthesizer, Duration, Fn, Stack } from 'aws-cdk-lib';
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

/**
 * What only the deploying role may do on the queues: empty them, change their attributes or policy,
 * delete them. CloudFormation needs SetQueueAttributes (updates, the QueuePolicy resource) and
 * DeleteQueue (stack deletion); nobody else needs any of them.
 */
export const DEPLOYER_ONLY_ACTIONS = [
  'sqs:PurgeQueue',
  'sqs:SetQueueAttributes',
  'sqs:AddPermission',
  'sqs:RemovePermission',
  'sqs:DeleteQueue',
] as const;

/** Id of the synth-time warning when no deploying role is known. */
export const NO_DEPLOYING_ROLE_WARNING = 'scheduler-agent-supervisor:replyQueuesWithoutDeployingRole';

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
  /**
   * The role that deploys the stack, the only principal allowed DEPLOYER_ONLY_ACTIONS on the queues
   * (an ARN; `${AWS::Partition}`, `${AWS::AccountId}` and `${AWS::Region}` are substituted).
   * @default - the CloudFormation execution role the stack's synthesizer names (a
   * DefaultStackSynthesizer's, qualifier included); with a synthesizer that names none (CLI
   * credentials), the actions are not limited and synthesis warns
   */
  readonly deployingRoleArn?: string;
}

/**
 * One FIFO reply queue per client (and its FIFO dead-letter queue), SSE-SQS and TLS-only, whose
 * resource policy, by explicit Denies no identity policy in the account can override:
 * - denies receive, delete and change-visibility to every principal but the client's, and allows
 *   them to the client's principal (which may live in another account);
 * - denies SendMessage to every principal but the one sender (`onlySender`, the status notifier's
 *   role), which is granted SendMessage by its own identity policy: nobody can forge a status;
 * - denies purge, attribute and policy changes and deletion to every principal but the deploying
 *   role (CloudFormation's, which must keep updating and deleting the queues).
 * Its validation fails synthesis until `onlySender` names the sender.
 */
export class ClientReplyQueues extends Construct {
  readonly clients: readonly ClientReplyQueue[];
  /** The deploying role's ARN (tokens or Fn::Sub), if known. */
  readonly deployingRoleArn: string | undefined;
  private sender: iam.IRole | undefined;

  constructor(scope: Construct, id: string, props: ClientReplyQueuesProps) {
    super(scope, id);
    validateClients(this.node.path, props.clients);
    const stack = Stack.of(this);
    const account = stack.account;
    const deployingRole = props.deployingRoleArn ?? synthesizerExecutionRole(stack);
    this.deployingRoleArn = deployingRole === undefined ? undefined : Fn.sub(deployingRole);
    if (this.deployingRoleArn === undefined) {
      Annotations.of(this).addWarningV2(
        NO_DEPLOYING_ROLE_WARNING,
        'The stack synthesizer names no CloudFormation execution role and no deployingRoleArn is given: ' +
          `any principal an identity policy allows may ${DEPLOYER_ONLY_ACTIONS.join(', ')} on the reply queues.`,
      );
    }
    this.node.addValidation({
      validate: () =>
        this.sender
          ? []
          : ['onlySender was never called: the reply queues would take SendMessage from anyone'],
    });
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
      for (const target of [queue, deadLetterQueue]) {
        restrictToClient(target, principal);
        if (this.deployingRoleArn !== undefined) {
          denyAllBut(target, 'OnlyTheDeployerAdministers', DEPLOYER_ONLY_ACTIONS, this.deployingRoleArn);
        }
      }
      return { name: client.name, principal, queue, deadLetterQueue };
    });
  }

  /**
   * Makes `role` the only principal that may send to the reply queues (and their dead-letter
   * queues, where only SQS's redrive puts messages). It still needs its own grant (an identity
   * policy allowing sqs:SendMessage). Called once.
   */
  onlySender(role: iam.IRole): void {
    if (this.sender) throw new Error(`ClientReplyQueues ${this.node.path}: onlySender is already set`);
    this.sender = role;
    for (const client of this.clients) {
      for (const target of [client.queue, client.deadLetterQueue]) {
        denyAllBut(target, 'OnlyTheNotifierSends', ['sqs:SendMessage'], role.roleArn);
      }
    }
  }
}

/** The CloudFormation execution role of a DefaultStackSynthesizer (or a subclass), with placeholders. */
function synthesizerExecutionRole(stack: Stack): string | undefined {
  const { synthesizer } = stack;
  return synthesizer instanceof DefaultStackSynthesizer
    ? synthesizer.cloudFormationExecutionRoleArn
    : undefined;
}

/** An explicit Deny of `actions` to every principal whose aws:PrincipalArn is not `principalArn`. */
function denyAllBut(queue: sqs.Queue, sid: string, actions: readonly string[], principalArn: string): void {
  queue.addToResourcePolicy(
    new iam.PolicyStatement({
      sid,
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: [...actions],
      resources: [queue.queueArn],
      conditions: { ArnNotEquals: { 'aws:PrincipalArn': principalArn } },
    }),
  );
}

function restrictToClient(queue: sqs.Queue, principal: string): void {
  denyAllBut(queue, 'OnlyTheClientConsumes', CLIENT_ONLY_ACTIONS, principal);
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
