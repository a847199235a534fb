/**
 * Status notifier (DESIGN.md, Per-client reply queues): on the state table's stream, tells each
 * order's client its status changes on the client's own FIFO reply queue. Composition only.
 */
import { createSqsClient } from '../../shared/aws-clients';
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { SqsClientReplies } from '../adapters/client-replies';
import { readClientRegistry } from '../adapters/runtime-config';
import { statusNotifier } from '../adapters/status-notifier';
import type { OrderMetric } from '../contracts';

const observability = createObservability<OrderMetric>();

export const handler = instrumentedHandler(
  observability,
  statusNotifier({
    registry: readClientRegistry(),
    replies: new SqsClientReplies(createSqsClient(observability.tracer)),
    observability,
  }),
);
