/**
 * Powertools idempotency around the agent's remote call, keyed on the request's stable
 * idempotencyKey ONLY (never the task token, which changes on every attempt), so duplicated SQS
 * deliveries and later attempts of the same step share one downstream effect. A compensation has
 * its own key (`<orderId>:<compensation>`, checked by resolveAgentOperation), so its stored answer
 * (undone or not) never mixes with the step's. Only successful
 * calls are stored: a failed call throws, Powertools deletes its in-progress record, and the next
 * delivery calls again.
 *
 * Powertools errors are translated into the domain's: another delivery mid-call becomes
 * ConcurrentDeliveryError (retry later), a key reused with different order data becomes
 * IdempotencyKeyReusedError (permanent).
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { hasErrorName } from '../../shared/errors';
import type { AgentResult } from '../contracts';
import { type CallObserver, type RemoteCallInput } from '../domain/agent';
import { ConcurrentDeliveryError, IdempotencyKeyReusedError } from '../domain/errors';

export interface IdempotentRemoteCallOptions {
  readonly tableName: string;
  readonly client: DynamoDBClient;
  /** How long a completed call is remembered. */
  readonly expiresAfterSeconds: number;
  /**
   * Namespace of the keys in the table. Set explicitly (not derived from the function name) so a
   * renamed or redeployed function still finds the calls its predecessor completed.
   */
  readonly keyPrefix: string;
}

/**
 * The wrapped function: only its first argument is hashed into the key (via idempotencyKey); the
 * observer is per delivery and plays no part in the key.
 */
export type RemoteCall = (input: RemoteCallInput, observer: CallObserver) => Promise<AgentResult>;

export interface IdempotentRemoteCall {
  call(input: RemoteCallInput, observer: CallObserver): Promise<AgentResult>;
  /** Lets Powertools expire an in-progress record when the invocation that owns it times out. */
  registerLambdaContext(context: Context): void;
}

export function makeIdempotentRemoteCall(
  callRemote: RemoteCall,
  options: IdempotentRemoteCallOptions,
): IdempotentRemoteCall {
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'idempotencyKey',
    // The same key with different order data is a bug upstream, not a duplicate: refuse it.
    payloadValidationJmesPath: 'order',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: options.expiresAfterSeconds,
  });
  const idempotent = makeIdempotent(callRemote, {
    persistenceStore: new DynamoDBPersistenceLayer({
      tableName: options.tableName,
      awsSdkV3Client: options.client,
    }),
    config,
    keyPrefix: options.keyPrefix,
  });
  return {
    async call(input, observer) {
      try {
        return await idempotent(input, observer);
      } catch (error) {
        throw translate(error, input.idempotencyKey);
      }
    },
    registerLambdaContext: (context) => config.registerLambdaContext(context),
  };
}

function translate(error: unknown, idempotencyKey: string): unknown {
  if (hasErrorName(error, 'IdempotencyAlreadyInProgressError'))
    return new ConcurrentDeliveryError(idempotencyKey);
  if (hasErrorName(error, 'IdempotencyValidationError')) return new IdempotencyKeyReusedError(idempotencyKey);
  return error;
}
