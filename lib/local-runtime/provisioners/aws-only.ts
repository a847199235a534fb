/**
 * Resource types that only matter on AWS (permissions, encryption, observability, CDK bookkeeping):
 * nothing to run, listed once at start as having no local effect.
 */
import type { Provisioner } from '../provisioning';

export const awsOnlyResources: Provisioner = {
  name: 'AWS-only resources',
  resourceTypes: {
    inert: {
      'AWS::IAM::*': 'IAM is not enforced locally',
      'AWS::KMS::*': 'data is not encrypted locally',
      'AWS::Logs::*': 'function output goes to the function log directory, not CloudWatch Logs',
      'AWS::XRay::*': 'tracing is not emulated',
      'AWS::WAFv2::*': 'web ACLs are not emulated: no per-IP rate limit locally',
      'AWS::CDK::Metadata': 'CDK bookkeeping',
    },
  },
};
