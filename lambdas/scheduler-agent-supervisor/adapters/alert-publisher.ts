import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ALERT_EVENT_SOURCE, AlertType, type SubmissionConflictDetail } from '../contracts';
import type { AlertPublisher, OutboxAlert, OutboxAlertPublisher } from '../domain/ports';

/** Operator alerts on the alert bus (EventBridge); the bus routes them to SNS and the alert inbox. */
export class EventBridgeAlertPublisher implements AlertPublisher, OutboxAlertPublisher {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {
    if (!busName) {
      throw new Error('EventBridgeAlertPublisher: busName is required');
    }
  }

  submissionConflict(detail: SubmissionConflictDetail): Promise<void> {
    return this.publish(AlertType.SubmissionConflict, detail.orderId, detail);
  }

  /**
   * An alert of the outbox. PutEvents has no idempotency key, so the alert's identity travels in
   * the detail (alertId) and its time is the outbox entry's, the same on every redelivery: the
   * archive and the operator de-duplicate on alertId.
   */
  publishAlert(alert: OutboxAlert): Promise<void> {
    return this.publish(alert.type, alert.detail.orderId, alert.detail, alert.detail.at);
  }

  private async publish(type: AlertType, orderId: string, detail: object, at?: string): Promise<void> {
    const time = at === undefined ? undefined : new Date(at);
    const result = await this.client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.busName,
            Source: ALERT_EVENT_SOURCE,
            DetailType: type,
            Detail: JSON.stringify(detail),
            ...(time !== undefined && !Number.isNaN(time.getTime()) && { Time: time }),
          },
        ],
      }),
    );
    // PutEvents answers 200 even when it drops an entry; the per-entry error is the only signal.
    if ((result.FailedEntryCount ?? 0) > 0) {
      const entry = result.Entries?.[0];
      throw new Error(
        `EventBridge rejected the ${type} alert for order '${orderId}' on bus '${this.busName}': ` +
          `${entry?.ErrorCode ?? 'unknown error'} ${entry?.ErrorMessage ?? ''}`.trim(),
      );
    }
  }
}
