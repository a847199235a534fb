/**
 * How every SQS-triggered handler works through its batch: Powertools' batch processor with partial
 * batch responses (the event source mapping has ReportBatchItemFailures on), so a record that
 * throws is reported alone and redelivered while the rest of the batch is acknowledged; each record
 * runs in its own traced subsegment, which the record handler annotates once it has parsed the
 * message (order and correlation id; the message id is in the logs, annotations are few per trace).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { traced } from './observability';
import type { HandlerTracer } from './tracing';

export function processSqsBatch(
  event: SQSEvent,
  context: Context,
  handleRecord: (record: SQSRecord) => Promise<void>,
  tracing: { readonly tracer: HandlerTracer; readonly recordSubsegment: string },
): Promise<SQSBatchResponse> {
  // One processor per invocation: it holds the batch's results, and several invocations of one
  // module may run at once in the same process (the local runtime, the integration tests).
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(
    event,
    (record: SQSRecord) => traced(tracing.tracer, tracing.recordSubsegment, {}, () => handleRecord(record)),
    processor,
    // The per-record report is the only channel, so one bad record in a batch of one is reported
    // the same way as in a batch of ten (not as a thrown FullBatchFailureError).
    { context, throwOnFullBatchFailure: false },
  );
}
