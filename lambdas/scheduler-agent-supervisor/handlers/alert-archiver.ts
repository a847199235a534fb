/** Target of the alert bus rule: archives each operator alert for operator inspect. */
import type { EventBridgeEvent } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { requireEnv } from '../../shared/env';
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { DynamoAlertArchive } from '../adapters/alert-archive';
import { EnvKey } from '../contracts';
import { archivedAlertFrom } from '../domain/alert-archive';

const observability = createObservability();
const { logger, tracer } = observability;
const archive = new DynamoAlertArchive(
  createDocumentClient(tracer),
  requireEnv(EnvKey.AlertArchiveTableName),
);

export const handler = instrumentedHandler(
  observability,
  async (event: EventBridgeEvent<string, unknown>): Promise<void> => {
    const parsed = archivedAlertFrom(event);
    if (!parsed.ok) {
      // Redelivery cannot make it valid: log it and let it go (the alert inbox still has it).
      logger.warn('Alert not archived', { problem: parsed.problem, eventId: event.id });
      return;
    }
    // A failure throws: EventBridge retries the asynchronous invocation.
    const outcome = await archive.archive(parsed.alert);
    logger.info(outcome === 'archived' ? 'Alert archived' : 'Alert already archived (a redelivery)', {
      orderId: parsed.alert.orderId,
      type: parsed.alert.type,
      alertId: parsed.alert.alertId,
    });
  },
);
