/**
 * A loopback HTTP endpoint that speaks the AWS JSON protocol (X-Amz-Target + JSON body), for
 * services that have no emulator on this machine in unit/integration tests (EventBridge PutEvents,
 * Step Functions StartExecution / SendTask*). The code under test uses the real AWS SDK client;
 * only the far end of the wire is scripted. The local runtime (npm start) has real emulators.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.slice(target.lastIndexOf('.') + 1);
      const text = Buffer.concat(chunks).toString('utf8');
      const call: RecordedCall = {
        operation,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
      calls.push(call);
      const reply = responder(call) ?? { result: {} };
      const contentType = String(req.headers['content-type'] ?? 'application/x-amz-json-1.0');
      if ('error' in reply) {
        res.writeHead(400, { 'content-type': contentType });
        res.end(JSON.stringify({ __type: reply.error, message: reply.message ?? reply.error }));
        return;
      }
      res.writeHead(200, { 'content-type': contentType });
      res.end(JSON.stringify(reply.result));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    callsTo: (operation) => calls.filter((call) => call.operation === operation),
    respondWith: (next) => {
      responder = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
