import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { DataSettings } from './data-settings';
import { acknowledgeOnDefaultPolicy, nagResourceName } from './scoped-role';

/** The page every path without a file falls back to (the page routes with the URL's hash). */
export const SITE_INDEX_DOCUMENT = 'index.html';

export interface StaticSiteProps {
  /** A built single-page app: a folder holding SITE_INDEX_DOCUMENT and its assets. */
  readonly assetsDir: string;
  /**
   * The Content-Security-Policy every answer carries. It must name every origin the page calls
   * (`connect-src`), since the page is served from the distribution's own origin.
   */
  readonly contentSecurityPolicy: string;
  /**
   * Days the access logs (S3 server access logs and CloudFront's standard logs) are kept.
   * @default 90
   */
  readonly logRetentionDays?: number;
}

/**
 * A built single-page app in a private S3 bucket behind CloudFront: the bucket blocks all public
 * access, enforces TLS and is encrypted (S3-managed keys, which CloudFront's origin access control
 * reads without a key grant); CloudFront reads it through origin access control (OAC) only, answers
 * HTTPS only (HTTP redirects), sends strict security headers, serves SITE_INDEX_DOCUMENT at the root
 * and for any missing path (403/404 from S3), and logs requests. The files are uploaded by a
 * BucketDeployment that replaces the previous ones and invalidates the distribution's cache.
 */
export class StaticSite extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** `https://<distribution domain>`: the origin the page's requests carry (for CORS). */
  readonly origin: string;
  readonly deployment: s3deploy.BucketDeployment;

  constructor(scope: Construct, id: string, props: StaticSiteProps) {
    super(scope, id);
    if (!existsSync(join(props.assetsDir, SITE_INDEX_DOCUMENT))) {
      throw new Error(
        `StaticSite ${this.node.path}: no ${SITE_INDEX_DOCUMENT} in ${props.assetsDir}: build the page first`,
      );
    }
    if (!/connect-src /.test(props.contentSecurityPolicy)) {
      throw new Error(
        `StaticSite ${this.node.path}: the Content-Security-Policy must name connect-src (what the page may call)`,
      );
    }
    const logRetentionDays = props.logRetentionDays ?? 90;
    if (!Number.isInteger(logRetentionDays) || logRetentionDays < 1) {
      throw new Error(
        `StaticSite ${this.node.path}: logRetentionDays must be a positive integer, got ${logRetentionDays}`,
      );
    }
    const removal = DataSettings.of(this).retainData
      ? { removalPolicy: RemovalPolicy.RETAIN }
      : { removalPolicy: RemovalPolicy.DESTROY, autoDeleteObjects: true };
    const expireLogs = [{ expiration: Duration.days(logRetentionDays) }];

    // CloudFront's standard logs are written with ACLs: this bucket alone keeps object writers' ACLs.
    const logs = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: expireLogs,
      ...removal,
    });
    Validations.of(logs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This is the access log bucket of the site bucket and the distribution: logging it into itself would loop.',
    });

    this.bucket = new s3.Bucket(this, 'Assets', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: 's3/',
      versioned: false,
      ...removal,
    });

    const headers = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'The page loads only its own scripts and styles and calls only the origins its CSP names',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: props.contentSecurityPolicy, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });
    // S3 answers 403 for a key that does not exist (the distribution may not list the bucket).
    const pageFallback = (httpStatus: number): cloudfront.ErrorResponse => ({
      httpStatus,
      responseHttpStatus: 200,
      responsePagePath: `/${SITE_INDEX_DOCUMENT}`,
      ttl: Duration.seconds(0),
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `${this.node.path}: a single-page app`,
      defaultRootObject: SITE_INDEX_DOCUMENT,
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
      },
      errorResponses: [pageFallback(403), pageFallback(404)],
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: logs,
      logFilePrefix: 'cloudfront/',
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'Operators may work from anywhere; every call the page makes is authorised by IAM (signed with Cognito credentials), not by where it comes from.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'The distribution serves static files only (GET/HEAD, cached); the operator API it calls has its own web ACL and IAM authorisation.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          "The distribution uses CloudFront's default domain and certificate, whose TLS policy CloudFront fixes; a custom domain with TLSv1.2_2021 is the deployer's choice.",
      },
    );
    this.origin = `https://${this.distribution.distributionDomainName}`;

    this.deployment = new s3deploy.BucketDeployment(this, 'Deployment', {
      sources: [s3deploy.Source.asset(props.assetsDir)],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      prune: true,
    });
    acknowledgeDeploymentHandler(this.deployment, this.bucket);
  }

  /**
   * A JSON file written next to the assets at deploy (BucketDeployment's jsonData: its values may be
   * deploy-time references, such as a user pool's id, resolved by CloudFormation).
   */
  addJsonFile(fileName: string, data: Record<string, unknown>): void {
    if (!/^[\w.-]+\.json$/.test(fileName)) {
      throw new Error(`StaticSite ${this.node.path}: '${fileName}' is not a plain .json file name`);
    }
    this.deployment.addSource(s3deploy.Source.jsonData(fileName, data));
  }
}

/**
 * BucketDeployment's upload function is the CDK's own (one per stack, its code and runtime pinned
 * by aws-cdk-lib): its findings are acknowledged on it, by name, so any other finding still fails.
 */
function acknowledgeDeploymentHandler(deployment: s3deploy.BucketDeployment, bucket: s3.Bucket): void {
  const role = deployment.handlerRole;
  const handler = role.node.scope;
  if (!handler) throw new Error(`${deployment.node.path}: the upload function's role has no function`);
  const why =
    "BucketDeployment's upload function (aws-cdk-lib's own): it copies the page from the CDK asset bucket to the site bucket and invalidates the distribution";
  Validations.of(handler).acknowledge({
    id: 'AwsSolutions-L1',
    reason: `${why}; its runtime is the one aws-cdk-lib pins and tests it with.`,
  });
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: `${why}; the AWS managed policy grants its logs only.`,
  });
  const grants = {
    'Action::s3:GetObject*': 'reads the asset objects',
    'Action::s3:GetBucket*': 'reads the buckets it copies between',
    'Action::s3:List*': 'lists both buckets to prune what the new page no longer has',
    'Action::s3:DeleteObject*': 'prunes the old files from the site bucket',
    'Action::s3:Abort*': 'aborts its own unfinished multipart uploads',
    'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*':
      "reads the CDK bootstrap asset bucket's objects (the zipped page)",
    [`Resource::${nagResourceName(bucket, bucket.arnForObjects('*'))}`]: "writes the site bucket's objects",
    'Resource::*':
      'creates the CloudFront invalidation (CreateInvalidation/GetInvalidation take no resource scope)',
  };
  for (const [finding, what] of Object.entries(grants)) {
    acknowledgeOnDefaultPolicy(role, { id: `AwsSolutions-IAM5[${finding}]`, reason: `${why}: it ${what}.` });
  }
}
