/**
 * Resource types that only matter on AWS (observability, web ACLs, CDK bookkeeping):
 * nothing to run, listed once at start as having no local effect.
 */
import type { Provisioner } from '../provisioning';

export const awsOnlyResources: Provisioner = {
  name: 'AWS-only resources',
  resourceTypes: {
    inert: {
      // IAM roles and policies and KMS keys are the IAM provisioner's (./iam.ts).
      'AWS::Logs::*': 'function output goes to the function log directory, not CloudWatch Logs',
      'AWS::XRay::*': 'tracing is not emulated',
      'AWS::WAFv2::*': 'web ACLs are not emulated: no per-IP rate limit locally',
      'AWS::CDK::Metadata': 'CDK bookkeeping',
    },
  },
};
