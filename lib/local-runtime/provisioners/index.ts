/**
 * The provisioners of the local runtime, in phase order: what each depends on is built first. A new
 * resource type is one more provisioner here (or one more type of an existing one); a new kind of
 * event source mapping is one more entry of the mapping provisioner's kinds.
 */
import { ProvisionerRegistry } from '../provisioning';
import { ApiGatewayProvisioner } from './api-gateway';
import { AwsApiFaultProxies } from './aws-api-faults';
import { awsOnlyResources } from './aws-only';
import { CloudWatchProvisioner } from './cloudwatch';
import { DynamoDbProvisioner } from './dynamodb';
import { dynamoDbStreams, PipesProvisioner } from './dynamodb-streams';
import { EventSourceMappingProvisioner, sqsQueues } from './event-source-mappings';
import { EventBridgeProvisioner } from './eventbridge';
import { FunctionUrlProvisioner } from './function-urls';
import { IamProvisioner } from './iam';
import { LambdaProvisioner } from './lambda';
import { SnsProvisioner } from './sns';
import { SqsProvisioner } from './sqs';
import { StepFunctionsProvisioner } from './stepfunctions';
import { UnsupportedServices } from './unsupported-services';

/** A fresh set of provisioners (they hold the state of one runtime). */
export function standardProvisioners(): ProvisionerRegistry {
  const dynamodb = new DynamoDbProvisioner();
  const sqs = new SqsProvisioner();
  const lambda = new LambdaProvisioner();
  const eventBridge = new EventBridgeProvisioner(lambda);
  const sns = new SnsProvisioner();
  const apiGateway = new ApiGatewayProvisioner(lambda);
  const streamNeighbours = { dynamodb, sqs, sns, lambda, eventBridge };
  return new ProvisionerRegistry([
    awsOnlyResources,
    new UnsupportedServices(),
    // First: every later provisioner's resources call with (or are reached through) its roles and keys.
    new IamProvisioner(),
    dynamodb,
    sqs,
    lambda,
    sns,
    eventBridge,
    new StepFunctionsProvisioner({ dynamodb, sqs, eventBridge, lambda }),
    new FunctionUrlProvisioner(lambda),
    apiGateway,
    new EventSourceMappingProvisioner(lambda, [sqsQueues(sqs, lambda), dynamoDbStreams(streamNeighbours)]),
    new PipesProvisioner(streamNeighbours),
    // After SNS: alarm actions publish to topics; it reads what functions write, queues hold, stream
    // mappings send and APIs answer.
    new CloudWatchProvisioner(lambda, sqs, apiGateway),
    // Last: its proxies stand in front of endpoints every other provisioner announced while listening.
    new AwsApiFaultProxies(),
  ]);
}
