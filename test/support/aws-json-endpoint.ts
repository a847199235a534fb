/**
 * A scripted AWS JSON protocol endpoint (X-Amz-Target + JSON body) for unit/integration tests of
 * handlers whose far end is not under test (EventBridge PutEvents, Step Functions StartExecution /
 * SendTask*): the runtime's own AWS JSON protocol server, recording every call and answering what
 * the test scripts. The code under test uses the real AWS SDK client. The local runtime (npm start)
 * has the real services.
 */

import { AwsApiError } from '../../lib/local-runtime/protocol/aws-api-error';
import { startAwsJsonServer } from '../../lib/local-runtime/protocol/aws-json-server';

export interface RecordedCall {
  /** Operation name, e.g. "PutEvents", "SendTaskSuccess". */
  readonly operation: string;
  readonly body: Record<string, unknown>;
}

/** What the endpoint answers: a result object, or an AWS error by its type name. */
export type ScriptedReply =
  | { readonly result: Record<string, unknown> }
  | { readonly error: string; readonly message?: string };

export type Responder = (call: RecordedCall) => ScriptedReply | undefined;

export interface AwsJsonEndpoint {
  readonly endpoint: string;
  readonly calls: RecordedCall[];
  callsTo(operation: string): RecordedCall[];
  /** Replace how the endpoint answers (default: `{}` for every operation). */
  respondWith(responder: Responder): void;
  stop(): Promise<void>;
}

export async function startAwsJsonEndpoint(): Promise<AwsJsonEndpoint> {
  const calls: RecordedCall[] = [];
  let responder: Responder = () => undefined;
  const server = await startAwsJsonServer(
    'Scripted AWS endpoint',
    {},
    {
      otherOperation: (operation, body) => {
        const call: RecordedCall = { operation, body };
        calls.push(call);
        const reply = responder(call) ?? { result: {} };
        if ('error' in reply) throw new AwsApiError(reply.error, reply.message ?? reply.error);
        return reply.result;
      },
    },
  );
  return {
    endpoint: server.endpoint,
    calls,
    callsTo: (operation) => calls.filter((call) => call.operation === operation),
    respondWith: (next) => {
      responder = next;
    },
    stop: () => server.stop(),
  };
}
