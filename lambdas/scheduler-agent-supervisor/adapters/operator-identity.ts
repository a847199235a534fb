import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The operator: the IAM principal API Gateway authenticated (AWS_IAM methods fill
 * requestContext.identity.userArn; the local runtime does after verifying the SigV4 signature).
 * Undefined when absent: the route was reached without IAM authentication, and is refused.
 */
export function operatorOf(event: Pick<APIGatewayProxyEvent, 'requestContext'>): string | undefined {
  const arn = event.requestContext?.identity?.userArn;
  return typeof arn === 'string' && arn.length > 0 ? arn : undefined;
}
