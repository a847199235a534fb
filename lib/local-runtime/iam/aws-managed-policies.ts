/**
 * The AWS managed policies the templates attach, kept as data: AWS publishes each one's document in
 * the AWS Managed Policy Reference, and a copy is what the local account can evaluate. Each entry
 * names its page, the version copied and the day it was copied; a template attaching a managed
 * policy that is not here fails the local deploy naming it (add it from its page).
 */

export interface AwsManagedPolicy {
  readonly arn: string;
  /** The policy's page in the AWS Managed Policy Reference. */
  readonly source: string;
  readonly version: string;
  /** When the document was copied from its page (YYYY-MM-DD). */
  readonly copied: string;
  readonly document: unknown;
}

export const AWS_MANAGED_POLICIES: readonly AwsManagedPolicy[] = [
  {
    // Attached by CDK's lambda.Function to the role it creates (unless the function's log group is
    // CDK-managed, as this app's are): the local runtime's own test fixtures use it.
    arn: 'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole',
    source:
      'https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaBasicExecutionRole.html',
    version: 'v1',
    copied: '2026-12-02',
    document: {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: '*',
        },
      ],
    },
  },
  {
    // Attached by CDK's apigateway.RestApi to its account-wide CloudWatch role (AWS::ApiGateway::Account).
    arn: 'arn:aws:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
    source:
      'https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AmazonAPIGatewayPushToCloudWatchLogs.html',
    version: 'v1',
    copied: '2026-12-02',
    document: {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: [
            'logs:CreateLogGroup',
            'logs:CreateLogStream',
            'logs:DescribeLogGroups',
            'logs:DescribeLogStreams',
            'logs:PutLogEvents',
            'logs:GetLogEvents',
            'logs:FilterLogEvents',
          ],
          Resource: '*',
        },
      ],
    },
  },
];

/** The managed policy an ARN names (any partition), if the local copy has it. */
export function awsManagedPolicy(arn: string): AwsManagedPolicy | undefined {
  const normalized = arn.replace(/^arn:aws[a-z-]*:/, 'arn:aws:');
  return AWS_MANAGED_POLICIES.find((policy) => policy.arn === normalized);
}
