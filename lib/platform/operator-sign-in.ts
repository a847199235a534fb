import { Duration, Token } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { DataSettings } from './data-settings';

export interface OperatorSignInProps {
  /**
   * Where Cognito's sign-in page sends an operator back (the console's URL, with its trailing
   * slash), and where its sign-out does (the page's logout_uri).
   */
  readonly callbackUrl: string;
  /**
   * The sign-in page's domain prefix, `<prefix>.auth.<region>.amazoncognito.com`: unique in the
   * region, lowercase letters, digits and hyphens (Cognito refuses `aws`, `amazon` and `cognito` in it).
   */
  readonly domainPrefix: string;
}

/** Cognito's own bounds of a domain prefix (a deploy-time token is checked by Cognito instead). */
const DOMAIN_PREFIX = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * How operators sign in to a browser console without any secret in the page: a user pool of
 * operators (created by an administrator only, MFA required, strong passwords, threat protection),
 * Cognito's sign-in page with the authorization code flow and PKCE for a public app client, and an
 * identity pool that trades a signed-in operator's id token for temporary AWS credentials of
 * `authenticatedRole`. Unauthenticated identities are off. What the role may do is the caller's to
 * grant (least privilege: the operator routes, the alarms), never here.
 */
export class OperatorSignIn extends Construct {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;
  readonly domain: cognito.UserPoolDomain;
  readonly identityPool: cognito.CfnIdentityPool;
  /** The only role the identity pool hands out (to signed-in operators of this pool's client). */
  readonly authenticatedRole: iam.Role;
  /** `https://<prefix>.auth.<region>.amazoncognito.com`: the sign-in page and token endpoint. */
  readonly signInUrl: string;

  constructor(scope: Construct, id: string, props: OperatorSignInProps) {
    super(scope, id);
    const prefix = props.domainPrefix;
    if (!Token.isUnresolved(prefix) && (!DOMAIN_PREFIX.test(prefix) || /aws|amazon|cognito/.test(prefix))) {
      throw new Error(
        `OperatorSignIn ${this.node.path}: domainPrefix must be lowercase letters, digits and inner hyphens (at most 63) without aws, amazon or cognito, got '${props.domainPrefix}'`,
      );
    }
    if (!Token.isUnresolved(props.callbackUrl) && !props.callbackUrl.startsWith('https://')) {
      throw new Error(
        `OperatorSignIn ${this.node.path}: callbackUrl must be an https URL, got '${props.callbackUrl}'`,
      );
    }

    this.userPool = new cognito.UserPool(this, 'Operators', {
      // Operators are created by an administrator (`aws cognito-idp admin-create-user`), never by themselves.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      mfa: cognito.Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 14,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      featurePlan: cognito.FeaturePlan.PLUS,
      standardThreatProtectionMode: cognito.StandardThreatProtectionMode.FULL_FUNCTION,
      deletionProtection: DataSettings.of(this).retainData,
      removalPolicy: DataSettings.of(this).removalPolicy,
    });
    this.domain = this.userPool.addDomain('SignInPage', {
      cognitoDomain: { domainPrefix: props.domainPrefix },
    });
    this.client = this.userPool.addClient('Console', {
      // A browser holds no secret: the code flow with PKCE proves the caller started the sign-in.
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL],
        callbackUrls: [props.callbackUrl],
        // The console's sign-out (Cognito's /logout) sends the operator back to the console, which
        // asks for a fresh sign-in: Cognito accepts only a registered logout_uri.
        logoutUrls: [props.callbackUrl],
      },
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(12),
      enableTokenRevocation: true,
    });
    // Only the hosted UI signs operators in (the code flow above). CDK renders `authFlows: {}` as no
    // ExplicitAuthFlows, which Cognito reads as ALLOW_USER_SRP_AUTH + ALLOW_CUSTOM_AUTH +
    // ALLOW_REFRESH_TOKEN_AUTH: name the one flow kept, refresh (Cognito requires it with any list;
    // the console never sends a refresh token, it signs in again after the hour).
    (this.client.node.defaultChild as cognito.CfnUserPoolClient).explicitAuthFlows = [
      'ALLOW_REFRESH_TOKEN_AUTH',
    ];
    this.signInUrl = this.domain.baseUrl();

    this.identityPool = new cognito.CfnIdentityPool(this, 'Identities', {
      allowUnauthenticatedIdentities: false,
      allowClassicFlow: false,
      cognitoIdentityProviders: [
        {
          clientId: this.client.userPoolClientId,
          providerName: this.userPool.userPoolProviderName,
          serverSideTokenCheck: true,
        },
      ],
    });
    this.authenticatedRole = new iam.Role(this, 'OperatorRole', {
      description: 'Signed-in console operators (Cognito identity pool, authenticated identities only)',
      maxSessionDuration: Duration.hours(1),
      assumedBy: new iam.FederatedPrincipal(
        'cognito-identity.amazonaws.com',
        {
          StringEquals: { 'cognito-identity.amazonaws.com:aud': this.identityPool.ref },
          'ForAnyValue:StringLike': { 'cognito-identity.amazonaws.com:amr': 'authenticated' },
        },
        'sts:AssumeRoleWithWebIdentity',
      ),
    });
    new cognito.CfnIdentityPoolRoleAttachment(this, 'Roles', {
      identityPoolId: this.identityPool.ref,
      roles: { authenticated: this.authenticatedRole.roleArn },
    });
  }
}
