/**
 * The queue policy a subscriber's own queue needs before a service may deliver to it (an
 * EventBridge rule, an SNS topic): Allow the service principal `sqs:SendMessage` on the queue, for
 * that source only when it is named (`aws:SourceArn`), as AWS requires
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html#eb-sqs-permissions,
 * https://docs.aws.amazon.com/sns/latest/dg/subscribe-sqs-queue-to-sns-topic.html). Used by every
 * client that subscribes a queue at run time (the tests, the deliveries campaign's observer).
 */
export function serviceSendPolicy(queueArn: string, service: string, sourceArn?: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: service },
        Action: 'sqs:SendMessage',
        Resource: queueArn,
        ...(sourceArn ? { Condition: { ArnEquals: { 'aws:SourceArn': sourceArn } } } : {}),
      },
    ],
  });
}
