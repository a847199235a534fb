import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  ALERT_EVENT_SOURCE,
  AlertType,
  type CompensationFailedDetail,
  type OrderFailedDetail,
} from '../contracts';
import type { AlertPublisher } from '../domain/ports';

/** Operator alerts on the alert bus (EventBridge); the bus routes them to SNS and the alert inbox. */
export class EventBridgeAlertPublisher implements AlertPublisher {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {
    if (!busName) {
      throw new Error('EventBridgeAlertPublisher: busName is required');
    }
  }

  orderFailed(detail: OrderFailedDetail): Promise<void> {
    return this.publish(AlertType.OrderFailed, detail.orderId, detail);
  }

  compensationFailed(detail: CompensationFailedDetail): Promise<void> {
    return this.publish(AlertType.CompensationFailed, detail.orderId, detail);
  }

  private async publish(type: AlertType, orderId: string, detail: object): Promise<void> {
    const result = await this.client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.busName,
            Source: ALERT_EVENT_SOURCE,
            DetailType: type,
            Detail: JSON.stringify(detail),
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
