/**
 * The SNS API actions the runtime serves over the AWS Query protocol (../protocol/aws-query-server.ts), for
 * handlers (AWS_ENDPOINT_URL_SNS) and tools (`aws sns --endpoint-url`): Publish, PublishBatch,
 * ListTopics, ListSubscriptionsByTopic, Subscribe (sqs and lambda) and Unsubscribe, with SNS's
 * answers and error codes. Topics come from the templates; the API adds subscriptions at run time.
 */
import type {
  BatchResultErrorEntry,
  ListSubscriptionsByTopicResponse,
  ListTopicsResponse,
  PublishBatchResponse,
  PublishBatchResultEntry,
  PublishResponse,
  SubscribeResponse,
} from '@aws-sdk/client-sns';
import { mintUuid } from '../minted-ids';
import { AwsApiError } from '../protocol/aws-api-error';
import {
  type QueryOperation,
  type QueryParameters,
  queryList,
  queryMap,
  queryString,
  typedQueryOperation,
} from '../protocol/aws-query-server';
import { invalidParameter, notFound } from './errors';
import { BATCH_ENTRY_ID, MAX_BATCH_ENTRIES, MAX_BATCH_PAYLOAD_BYTES } from './limits';
import { checkSnsMessageAttributes, publishSizeBytes } from './message-attributes';
import { readSubscriptionAttributes } from './subscription-attributes';
import type { LocalSns, PublishRequest } from './topics';

export interface SnsApiOptions {
  readonly accountId: string;
}

export function snsApiOperations(sns: LocalSns, options: SnsApiOptions): Record<string, QueryOperation> {
  const required = (parameters: QueryParameters, name: string): string => {
    const value = queryString(parameters, name);
    if (value === undefined || value === '') throw invalidParameter(`${name} Reason: must be provided`);
    return value;
  };
  const topicArnOf = (parameters: QueryParameters): string => {
    const topicArn = queryString(parameters, 'TopicArn') ?? queryString(parameters, 'TargetArn') ?? '';
    if (!topicArn.startsWith('arn:aws:sns:')) throw invalidParameter('TopicArn');
    if (!sns.has(topicArn)) throw notFound('Topic does not exist');
    return topicArn;
  };
  return {
    Publish: typedQueryOperation<PublishResponse>(async (parameters) => {
      const topicArn = topicArnOf(parameters);
      const { messageId, sequenceNumber } = await sns.publish(publishRequest(topicArn, parameters));
      return { MessageId: messageId, SequenceNumber: sequenceNumber };
    }),
    PublishBatch: typedQueryOperation<PublishBatchResponse>(async (parameters) => {
      const topicArn = topicArnOf(parameters);
      const entries = queryList(parameters, 'PublishBatchRequestEntries');
      if (entries.length === 0) {
        throw new AwsApiError('EmptyBatchRequest', 'The batch request does not contain any entries.');
      }
      if (entries.length > MAX_BATCH_ENTRIES) {
        throw new AwsApiError(
          'TooManyEntriesInBatchRequest',
          `The batch request contains more entries than permissible (${MAX_BATCH_ENTRIES}).`,
        );
      }
      const ids = entries.map((entry) => queryString(entry, 'Id') ?? '');
      // The model's texts of InvalidBatchEntryIdException and BatchRequestTooLongException
      // (https://docs.aws.amazon.com/sns/latest/api/API_PublishBatch.html, Errors).
      if (ids.some((id) => !BATCH_ENTRY_ID.test(id))) {
        throw new AwsApiError(
          'InvalidBatchEntryId',
          "The Id of a batch entry in a batch request doesn't abide by the specification.",
        );
      }
      if (new Set(ids).size !== ids.length) {
        throw new AwsApiError(
          'BatchEntryIdsNotDistinct',
          'Two or more batch entries in the request have the same Id.',
        );
      }
      if (entries.reduce((sum, entry) => sum + entrySizeBytes(entry), 0) > MAX_BATCH_PAYLOAD_BYTES) {
        throw new AwsApiError(
          'BatchRequestTooLong',
          'The length of all the batch messages put together is more than the limit.',
        );
      }
      const Successful: PublishBatchResultEntry[] = [];
      const Failed: BatchResultErrorEntry[] = [];
      // One after the other: a FIFO topic keeps the batch's order within each group.
      for (const [index, entry] of entries.entries()) {
        const Id = ids[index];
        try {
          const { messageId, sequenceNumber } = await sns.publish(publishRequest(topicArn, entry));
          Successful.push({ Id, MessageId: messageId, SequenceNumber: sequenceNumber });
        } catch (error) {
          if (!(error instanceof AwsApiError)) throw error;
          Failed.push({ Id, Code: error.errorType, Message: error.message, SenderFault: true });
        }
      }
      return { Successful, Failed };
    }),
    ListTopics: typedQueryOperation<ListTopicsResponse>(() => ({
      Topics: sns.topicArns().map((TopicArn) => ({ TopicArn })),
    })),
    ListSubscriptionsByTopic: typedQueryOperation<ListSubscriptionsByTopicResponse>((parameters) => {
      const topicArn = topicArnOf(parameters);
      return {
        Subscriptions: sns.subscriptionsOf(topicArn).map((subscription) => ({
          SubscriptionArn: subscription.subscriptionArn,
          Owner: options.accountId,
          Protocol: subscription.protocol,
          Endpoint: subscription.endpoint,
          TopicArn: topicArn,
        })),
      };
    }),
    Subscribe: typedQueryOperation<SubscribeResponse>((parameters) => {
      const topicArn = topicArnOf(parameters);
      const protocol = required(parameters, 'Protocol');
      const endpoint = required(parameters, 'Endpoint');
      const service = protocol === 'sqs' ? 'sqs' : protocol === 'lambda' ? 'lambda' : undefined;
      if (service && !endpoint.startsWith(`arn:aws:${service}:`)) {
        throw invalidParameter(`Invalid ${protocol} endpoint ARN: ${endpoint}`);
      }
      const attributes = readSubscriptionAttributes(queryMap(parameters, 'Attributes', 'key', 'value'));
      // Subscribing an endpoint again answers the subscription it already has, as SNS does.
      const existing = sns
        .subscriptionsOf(topicArn)
        .find((subscription) => subscription.protocol === protocol && subscription.endpoint === endpoint);
      if (existing) return { SubscriptionArn: existing.subscriptionArn };
      const subscriptionArn = `${topicArn}:${mintUuid()}`;
      sns.subscribe(topicArn, { subscriptionArn, protocol, endpoint, ...attributes });
      return { SubscriptionArn: subscriptionArn };
    }),
    Unsubscribe: typedQueryOperation<undefined>((parameters) => {
      const subscriptionArn = required(parameters, 'SubscriptionArn');
      const topicArn = subscriptionArn.slice(0, subscriptionArn.lastIndexOf(':'));
      if (!subscriptionArn.startsWith('arn:aws:sns:') || !sns.has(topicArn)) {
        throw notFound('Subscription does not exist');
      }
      // Unsubscribing a subscription that is already gone succeeds, as on AWS.
      sns.unsubscribe(subscriptionArn);
      return undefined;
    }),
  };
}

function publishRequest(topicArn: string, parameters: QueryParameters): PublishRequest {
  const message = queryString(parameters, 'Message');
  if (message === undefined || message === '') throw invalidParameter('Empty message');
  const subject = queryString(parameters, 'Subject');
  const messageGroupId = queryString(parameters, 'MessageGroupId');
  const messageDeduplicationId = queryString(parameters, 'MessageDeduplicationId');
  return {
    topicArn,
    message,
    messageAttributes: queryMap(parameters, 'MessageAttributes', 'Name', 'Value'),
    ...(subject !== undefined ? { subject } : {}),
    ...(messageGroupId !== undefined ? { messageGroupId } : {}),
    ...(messageDeduplicationId !== undefined ? { messageDeduplicationId } : {}),
  };
}

/**
 * One batch entry's length towards PublishBatch's total: its message and attributes as a publish
 * counts them (an entry whose attributes are invalid counts its message; it fails on its own).
 */
function entrySizeBytes(entry: QueryParameters): number {
  const message = queryString(entry, 'Message') ?? '';
  try {
    return publishSizeBytes(
      message,
      checkSnsMessageAttributes(queryMap(entry, 'MessageAttributes', 'Name', 'Value')),
    );
  } catch {
    return publishSizeBytes(message, {});
  }
}
