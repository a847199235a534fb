/**
 * Lambda function URLs: one loopback server per AWS::Lambda::Url, listening before the template is
 * resolved (its URL appears in environment variables and outputs), behind a fault proxy when the
 * functionUrl hook is set. Each request is authorized as Lambda does (../function-urls.ts): the
 * caller's SigV4 signature (signing name `lambda`) against the local account's credentials for
 * AuthType AWS_IAM, the anonymous principal for NONE, then the caller's and the function's policies.
 */
import { startInterceptingProxy } from '../fault-hooks';
import { type ReceivedRequest, verifySigV4 } from '../iam/identities';
import { anonymousPrincipal, principalContext } from '../iam/principals';
import {
  type FunctionUrlCaller,
  type FunctionUrlServer,
  startFunctionUrlServer,
} from '../lambda/function-urls';
import type { ListenContext, Provisioner, StackContext } from '../provisioning';
import type { LambdaProvisioner } from './lambda';

const URL_TYPE = 'AWS::Lambda::Url';

export class FunctionUrlProvisioner implements Provisioner {
  readonly name = 'Lambda function URLs';
  readonly resourceTypes = { runs: [URL_TYPE] };
  private readonly servers = new Map<string, FunctionUrlServer>();

  constructor(private readonly lambda: LambdaProvisioner) {}

  async listen(context: ListenContext): Promise<void> {
    const interceptor = context.options.faults?.functionUrl;
    for (const { stack, logicalId } of context.resourcesOfType(URL_TYPE)) {
      const server = await startFunctionUrlServer((message) => context.problem(message), context.clock);
      context.stopWith(server, 'producer');
      this.servers.set(`${stack.stackName}/${logicalId}`, server);
      let url = server.url;
      if (interceptor) {
        const proxy = await startInterceptingProxy(
          server.endpoint,
          interceptor,
          (message) => context.problem(message),
          context.clock,
        );
        context.stopWith(proxy, 'producer');
        url = `${proxy.endpoint}/`;
      }
      context.publishUrl(stack, logicalId, url);
    }
  }

  async wire(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(URL_TYPE)) {
      const properties = context.resolver.properties(logicalId);
      const functionArn = String(context.resolver.context.getAtt(logicalId, 'FunctionArn'));
      const server = this.servers.get(`${context.stack.stackName}/${logicalId}`);
      if (!server) throw new Error(`No local server for ${logicalId} in ${context.stack.stackName}`);
      if (properties.InvokeMode === 'RESPONSE_STREAM') {
        context.named(logicalId, URL_TYPE, 'InvokeMode RESPONSE_STREAM is not supported (BUFFERED only)');
      } else if (!this.lambda.host.find(functionArn)) {
        context.named(logicalId, URL_TYPE, `its function ${functionArn} does not run locally`);
      } else {
        const authType = properties.AuthType === 'AWS_IAM' ? 'AWS_IAM' : 'NONE';
        const authorize = async (request: ReceivedRequest): Promise<FunctionUrlCaller | undefined> => {
          if (authType === 'NONE') {
            return this.lambda.authorizeUrlInvoke(anonymousPrincipal(), functionArn, authType).allowed
              ? { kind: 'anonymous' }
              : undefined;
          }
          const signed = await verifySigV4(request, context.iam.credentials, {
            region: context.region,
            service: 'lambda',
          });
          if (!signed.ok) {
            context.problem(`function URL ${logicalId} refused a request: ${signed.message}`);
            return undefined;
          }
          const { principal, accessKeyId } = signed.identity;
          if (!this.lambda.authorizeUrlInvoke(principal, functionArn, authType).allowed) return undefined;
          const userId = String(principalContext(principal)['aws:userid'] ?? accessKeyId);
          return {
            kind: 'iam',
            accessKey: accessKeyId,
            accountId: context.accountId,
            callerId: userId,
            userArn: principal.arn,
            userId,
          };
        };
        server.serve(
          { logicalId, functionArn, authType, accountId: context.accountId, authorize },
          (arn, event) => this.lambda.host.invoke(arn, event),
        );
      }
    }
  }
}
