import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { createTerminalQueue } from '../platform/work-queue';

export interface DeliveryBusProps {
  /**
   * How long the bus archive keeps events (for replay).
   * @default Duration.days(30)
   */
  readonly archiveRetention?: Duration;
  /** Retries of a rule target before the event goes to the undelivered-events queue. @default 8 */
  readonly targetRetryAttempts?: number;
}

/** One queue a rule delivers to. */
export interface BusQueueTarget {
  readonly queue: sqs.IQueue;
  /**
   * FIFO targets: the message group id. EventBridge takes a fixed text here (SqsParameters has no
   * JSON path), so every event of the rule shares one group: its consumer must not need a group per
   * delivery (the ingestion read model orders by the events' sequence numbers itself).
   * Required for a FIFO queue, refused for a standard one.
   * @default - none
   */
  readonly messageGroupId?: string;
}

/**
 * The EventBridge bus of delivery lifecycle events, open to consumers the choreography does not
 * know, with an archive and a queue for events a target could not take. `route` adds a rule whose
 * target receives only the event's `detail` (InputPath `$.detail`: the envelope consumers parse).
 */
export class DeliveryBus extends Construct {
  readonly bus: events.EventBus;
  readonly archive: events.Archive;
  /** Events a rule could not deliver after its retries (standard queue, read by an operator). */
  readonly undelivered: sqs.Queue;
  private readonly retryAttempts: number;

  constructor(scope: Construct, id: string, props: DeliveryBusProps = {}) {
    super(scope, id);
    this.retryAttempts = props.targetRetryAttempts ?? 8;
    if (!Number.isInteger(this.retryAttempts) || this.retryAttempts < 0 || this.retryAttempts > 185) {
      throw new Error(
        `DeliveryBus ${this.node.path}: targetRetryAttempts must be an integer from 0 to 185, got ${this.retryAttempts}`,
      );
    }
    this.bus = new events.EventBus(this, 'Bus', { description: 'Drone delivery lifecycle events' });
    this.archive = this.bus.archive('Archive', {
      description: 'Every event of the drone delivery bus, for replay',
      eventPattern: { account: [this.bus.env.account] },
      retention: props.archiveRetention ?? Duration.days(30),
    });
    this.undelivered = createTerminalQueue(
      this,
      'UndeliveredEvents',
      'Events a bus rule could not deliver after its retries wait here for an operator (14 days).',
    );
  }

  /** A rule on the bus matching `pattern`, delivering each event's `detail` to the queue. */
  route(id: string, description: string, pattern: events.EventPattern, target: BusQueueTarget): events.Rule {
    const fifo = target.queue.fifo === true;
    if (fifo !== (target.messageGroupId !== undefined)) {
      throw new Error(
        `DeliveryBus ${this.node.path}: rule ${id} ${fifo ? 'targets a FIFO queue and needs' : 'targets a standard queue and takes no'} messageGroupId`,
      );
    }
    return new events.Rule(this, id, {
      eventBus: this.bus,
      description,
      eventPattern: pattern,
      targets: [
        new targets.SqsQueue(target.queue, {
          message: events.RuleTargetInput.fromEventPath('$.detail'),
          ...(target.messageGroupId !== undefined && { messageGroupId: target.messageGroupId }),
          retryAttempts: this.retryAttempts,
          deadLetterQueue: this.undelivered,
        }),
      ],
    });
  }
}
