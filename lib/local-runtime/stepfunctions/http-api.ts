/**
 * The Step Functions API over HTTP, AWS JSON 1.0 protocol: POST with `X-Amz-Target:
 * AWSStepFunctions.<Operation>`, JSON in and out, errors as HTTP 400 `{ __type, message }`.
 * Timestamps are epoch seconds, as the protocol (and the AWS SDK) expect.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SfnApiError } from './errors';
import type { ExecutionDescription, ExecutionStatus, StepFunctionsRuntime } from './runtime';

const TARGET_PREFIX = 'AWSStepFunctions.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';
/** Requests above this size are refused before parsing (inputs are limited to 256 KiB anyway). */
const MAX_REQUEST_BYTES = 1024 * 1024;
const EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'ABORTED',
];

type Body = Record<string, unknown>;
type Operation = (body: Body) => Body;

function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}

function requiredString(body: Body, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') {
    throw new SfnApiError(
      'ValidationException',
      `1 validation error detected: '${field}' must be a non-empty string`,
    );
  }
  return value;
}

function optionalString(body: Body, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new SfnApiError('ValidationException', `1 validation error detected: '${field}' must be a string`);
  }
  return value;
}

function taskToken(body: Body): string {
  const token = requiredString(body, 'taskToken');
  if (token.length > 2048) {
    throw new SfnApiError(
      'ValidationException',
      "1 validation error detected: 'taskToken' is longer than 2048",
    );
  }
  return token;
}

function executionBody(execution: ExecutionDescription, full: boolean): Body {
  return {
    executionArn: execution.executionArn,
    stateMachineArn: execution.stateMachineArn,
    name: execution.name,
    status: execution.status,
    startDate: epochSeconds(execution.startDate),
    ...(execution.stopDate ? { stopDate: epochSeconds(execution.stopDate) } : {}),
    ...(full
      ? {
          input: execution.input,
          inputDetails: { included: true },
          ...(execution.output === undefined
            ? {}
            : { output: execution.output, outputDetails: { included: true } }),
          ...(execution.error === undefined ? {} : { error: execution.error }),
          ...(execution.cause === undefined ? {} : { cause: execution.cause }),
        }
      : {}),
  };
}

export function operations(runtime: StepFunctionsRuntime): Readonly<Record<string, Operation>> {
  return {
    StartExecution: (body) => {
      const name = optionalString(body, 'name');
      const input = optionalString(body, 'input');
      const started = runtime.startExecution({
        stateMachineArn: requiredString(body, 'stateMachineArn'),
        ...(name === undefined ? {} : { name }),
        ...(input === undefined ? {} : { input }),
      });
      return { executionArn: started.executionArn, startDate: epochSeconds(started.startDate) };
    },
    DescribeExecution: (body) =>
      executionBody(runtime.describeExecution(requiredString(body, 'executionArn')), true),
    ListExecutions: (body) => {
      const statusFilter = optionalString(body, 'statusFilter');
      if (statusFilter !== undefined && !EXECUTION_STATUSES.includes(statusFilter as ExecutionStatus)) {
        throw new SfnApiError(
          'ValidationException',
          `statusFilter must be one of ${EXECUTION_STATUSES.join(', ')}`,
        );
      }
      const maxResults = body.maxResults;
      if (
        maxResults !== undefined &&
        (typeof maxResults !== 'number' ||
          !Number.isInteger(maxResults) ||
          maxResults < 0 ||
          maxResults > 1000)
      ) {
        throw new SfnApiError('ValidationException', 'maxResults must be an integer from 0 to 1000');
      }
      const nextToken = optionalString(body, 'nextToken');
      const page = runtime.listExecutions({
        stateMachineArn: requiredString(body, 'stateMachineArn'),
        ...(statusFilter === undefined ? {} : { statusFilter: statusFilter as ExecutionStatus }),
        ...(typeof maxResults === 'number' ? { maxResults } : {}),
        ...(nextToken === undefined ? {} : { nextToken }),
      });
      return {
        executions: page.executions.map((execution) => executionBody(execution, false)),
        ...(page.nextToken === undefined ? {} : { nextToken: page.nextToken }),
      };
    },
    StopExecution: (body) => {
      const error = optionalString(body, 'error');
      const cause = optionalString(body, 'cause');
      const stopped = runtime.stopExecution({
        executionArn: requiredString(body, 'executionArn'),
        ...(error === undefined ? {} : { error }),
        ...(cause === undefined ? {} : { cause }),
      });
      return { stopDate: epochSeconds(stopped.stopDate) };
    },
    SendTaskSuccess: (body) => {
      runtime.sendTaskSuccess(taskToken(body), requiredString(body, 'output'));
      return {};
    },
    SendTaskFailure: (body) => {
      runtime.sendTaskFailure(taskToken(body), optionalString(body, 'error'), optionalString(body, 'cause'));
      return {};
    },
    SendTaskHeartbeat: (body) => {
      runtime.sendTaskHeartbeat(taskToken(body));
      return {};
    },
    ListStateMachines: () => ({
      stateMachines: runtime.listStateMachines().map((machine) => ({
        stateMachineArn: machine.stateMachineArn,
        name: machine.name,
        type: machine.type,
        creationDate: epochSeconds(machine.creationDate),
      })),
    }),
    DescribeStateMachine: (body) => {
      const machine = runtime.describeStateMachine(requiredString(body, 'stateMachineArn'));
      return {
        stateMachineArn: machine.stateMachineArn,
        name: machine.name,
        status: 'ACTIVE',
        definition: machine.definition,
        roleArn: machine.roleArn,
        type: machine.type,
        creationDate: epochSeconds(machine.creationDate),
      };
    },
  };
}

function reply(res: ServerResponse, status: number, body: Body): void {
  res.writeHead(status, { 'content-type': CONTENT_TYPE });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reject(new SfnApiError('ValidationException', `Request larger than ${MAX_REQUEST_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(
  table: Readonly<Record<string, Operation>>,
  req: IncomingMessage,
  res: ServerResponse,
  onInternalError: (error: unknown) => void,
): Promise<void> {
  try {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (req.method !== 'POST' || !target.startsWith(TARGET_PREFIX)) {
      throw new SfnApiError(
        'UnknownOperationException',
        `Expected POST with X-Amz-Target ${TARGET_PREFIX}<Operation>`,
      );
    }
    const name = target.slice(TARGET_PREFIX.length);
    const operation = Object.hasOwn(table, name) ? table[name] : undefined;
    if (!operation) {
      throw new SfnApiError(
        'UnknownOperationException',
        `Operation ${name} is not supported by the local Step Functions runtime`,
      );
    }
    const text = await readBody(req);
    let body: unknown;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new SfnApiError('SerializationException', 'Request body is not JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new SfnApiError('SerializationException', 'Request body must be a JSON object');
    }
    reply(res, 200, operation(body as Body));
  } catch (error) {
    if (error instanceof SfnApiError) {
      reply(res, 400, { __type: error.errorType, message: error.message });
      return;
    }
    onInternalError(error);
    reply(res, 500, { __type: 'InternalFailure', message: (error as Error).message ?? 'Internal failure' });
  }
}

export interface ApiServer {
  readonly endpoint: string;
  close(): Promise<void>;
}

export async function startApiServer(
  runtime: StepFunctionsRuntime,
  listen: { readonly host: string; readonly port: number },
  onInternalError: (error: unknown) => void,
): Promise<ApiServer> {
  const table = operations(runtime);
  const server: Server = createServer((req, res) => {
    void handle(table, req, res, onInternalError);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${listen.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
