/**
 * The admission release consumer's work on one batch of state table stream records (filtered by
 * the event source to records whose new image holds AdmissionShard and a terminal ProcessState):
 * one release transaction per record, in order. A release whose condition fails was already done
 * (a retried batch, or the reconciler came first): counted as such, never as an error. On the first
 * error it stops and reports that record, so the mapping retries from there (bisecting, bounded)
 * and finally hands it to the on-failure queue, where the reconciler's sweep is the safety net.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Clock } from '../../shared/clock';
import { describeError } from '../../shared/errors';
import type { Observability } from '../../shared/observability';
import { OrderMetric, type ProcessState, StateAttr, TERMINAL_STATES } from '../contracts';
import { recordDrain } from '../domain/admission';
import type { DrainRecorder, HeldSlot, SlotReleaser } from '../domain/ports';

export interface ReleaseConsumerDependencies {
  readonly releaser: SlotReleaser;
  readonly drain: DrainRecorder;
  readonly clock: Clock;
  readonly observability: Pick<Observability<OrderMetric>, 'logger' | 'count'>;
}

export function admissionReleaseConsumer(
  deps: ReleaseConsumerDependencies,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  const { logger, count } = deps.observability;
  return async (event) => {
    let released = 0;
    let failure: string | undefined;
    for (const record of event.Records) {
      const slot = heldSlotOf(record);
      if (slot === undefined) continue;
      try {
        const outcome = await deps.releaser.release(slot, deps.clock.now());
        if (outcome === 'released') {
          released += 1;
          logger.info('Admission slot released', { ...slot });
        } else {
          logger.info('Admission slot already released (or the order moved on)', { ...slot });
        }
      } catch (error) {
        logger.error('Admission release failed; the stream resumes from this record', {
          ...slot,
          sequenceNumber: record.dynamodb?.SequenceNumber,
          error: describeError(error),
        });
        failure = record.dynamodb?.SequenceNumber ?? '';
        break;
      }
    }
    if (released > 0) {
      count(OrderMetric.AdmissionReleased, released);
      try {
        const recorded = await recordDrain(deps.drain, released, deps.clock.now());
        if (recorded === 'dropped') logger.debug('Drain sample dropped: lost every optimistic write');
      } catch (error) {
        // The releases are done; a lost drain sample only makes Retry-After less precise.
        logger.warn('Drain statistics not updated', { error: describeError(error) });
      }
    }
    return { batchItemFailures: failure === undefined ? [] : [{ itemIdentifier: failure }] };
  };
}

const TERMINAL = new Set<string>(TERMINAL_STATES);

/** The slot a stream record's new image holds, if it is terminal and still holds one. */
export function heldSlotOf(record: DynamoDBRecord): HeldSlot | undefined {
  const image = record.dynamodb?.NewImage;
  const orderId = image?.[StateAttr.OrderId]?.S;
  const shardKey = image?.[StateAttr.AdmissionShard]?.S;
  const processState = image?.[StateAttr.ProcessState]?.S;
  const clientShardKey = image?.[StateAttr.AdmissionClientShard]?.S;
  if (orderId === undefined || shardKey === undefined || processState === undefined) return undefined;
  if (!TERMINAL.has(processState)) return undefined;
  return {
    orderId,
    shardKey,
    processState: processState as ProcessState,
    ...(clientShardKey !== undefined && { clientShardKey }),
  };
}
