/**
 * A loopback server speaking the AWS JSON protocol (X-Amz-Target + JSON body), for the services the
 * runtime implements itself (EventBridge PutEvents). Handlers reach it through the standard
 * AWS_ENDPOINT_URL_<SERVICE> variables with the real SDK.
 */
import { createServer } from 'node:http';
import { closeServer, listen, type RunningServer } from './emulators';

/** An error answered as `{ __type, message }` with HTTP 400 (or the given status and headers), as AWS does. */
export class AwsApiError extends Error {
  constructor(
    readonly errorType: string,
    message: string,
    readonly reply: {
      readonly statusCode?: number;
      readonly headers?: Readonly<Record<string, string>>;
    } = {},
  ) {
    super(message);
    this.name = errorType;
  }
}

/** `signal` aborts when the client goes away before the answer (a long poll given up, say). */
export type AwsJsonOperation = (
  body: Record<string, unknown>,
  request: { readonly signal: AbortSignal },
) => Promise<Record<string, unknown>>;

export async function startAwsJsonServer(
  serviceName: string,
  operations: Readonly<Record<string, AwsJsonOperation>>,
): Promise<RunningServer> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const operationName = target.slice(target.lastIndexOf('.') + 1);
      const contentType = String(request.headers['content-type'] ?? 'application/x-amz-json-1.1');
      const reply = (status: number, body: unknown, headers: Readonly<Record<string, string>> = {}) => {
        response.writeHead(status, { ...headers, 'content-type': contentType });
        response.end(JSON.stringify(body));
      };
      const operation = operations[operationName];
      if (!operation) {
        reply(400, {
          __type: 'UnknownOperationException',
          message: `${serviceName} operation '${operationName || '(none)'}' is not supported by the local runtime (supported: ${Object.keys(operations).join(', ')})`,
        });
        return;
      }
      let body: Record<string, unknown>;
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        reply(400, { __type: 'SerializationException', message: 'Request body is not valid JSON' });
        return;
      }
      const clientGone = new AbortController();
      response.on('close', () => {
        if (!response.writableFinished) clientGone.abort();
      });
      operation(body, { signal: clientGone.signal }).then(
        (result) => reply(200, result),
        (error: Error) =>
          error instanceof AwsApiError
            ? reply(
                error.reply.statusCode ?? 400,
                { __type: error.errorType, message: error.message },
                error.reply.headers,
              )
            : reply(500, { __type: 'InternalFailure', message: error.message }),
      );
    });
  });
  const endpoint = await listen(server);
  return { endpoint, stop: () => closeServer(server) };
}

/**
 * Endpoint for every AWS service the runtime does not emulate (AWS_ENDPOINT_URL): a handler calling
 * one gets a clear error naming the service, and nothing ever reaches a real account.
 */
export async function startUnsupportedServiceServer(): Promise<RunningServer> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const authorization = String(request.headers.authorization ?? '');
      const service = /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(authorization)?.[1] ?? 'unknown';
      const message = `The local runtime does not emulate the AWS service '${service}'${target ? ` (${target})` : ''}`;
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ __type: 'UnsupportedOperation', message, Message: message }));
    });
  });
  const endpoint = await listen(server);
  return { endpoint, stop: () => closeServer(server) };
}
