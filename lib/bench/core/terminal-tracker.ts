/**
 * Submits requests (orders, deliveries) through their app's API, retried as the chaos campaigns
 * retry, and tells when each reaches a terminal state: one consistent batch read of everything in
 * flight per poll, so watching many costs the emulator one request a poll, not one each. Reads go
 * to the runtime's DynamoDB endpoint without naming a caller: the meter counts them as
 * UNNAMED_CALLER's, and the figures leave those out of the app's work (usage-scope.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeliveryStatus,
  type SubmitDeliveryRequest,
  TABLE_PARTITION_KEY,
  TERMINAL_DELIVERY_STATUSES,
} from '../../../lambdas/choreography/contracts';
import {
  type SubmitOrderRequest,
  TERMINAL_STATES,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { sleep } from '../../../lambdas/shared/clock';
import { forEachLimited } from '../../../lambdas/shared/concurrency';
import { MACHINE_PACE, submitUntilAnswered } from '../../chaos/common/loop';
import type { DRONE_DELIVERY_STACK_NAME } from '../../choreography/stack';
import { DeliverySystemDriver } from '../../harness/deliveries-driver';
import { consistentBatchGet, type SubmitOutcome, SystemDriver, stackView } from '../../harness/orders-driver';
import type { LocalTarget } from '../../local-runtime';

/** Where one request ended. */
export interface Outcome {
  readonly id: string;
  readonly state: string;
  /** Attempts it took, where the app counts them (an order's Attempt). */
  readonly attempt?: number;
  /** From the submission to the poll that saw the terminal state. */
  readonly millis: number;
}

/** What the tracker needs of an app. */
export interface TrackedApp<R> {
  idOf(request: R): string;
  submit(request: R): Promise<SubmitOutcome>;
  /** The current state of some requests (absent ones left out), read consistently. */
  read(ids: readonly string[]): Promise<ReadonlyArray<Omit<Outcome, 'millis'>>>;
  isTerminal(state: string): boolean;
  close(): void;
}

const SUBMIT_GIVE_UP_MILLIS = 60_000;

export class TerminalTracker<R> {
  private readonly waiting = new Map<
    string,
    {
      submittedAt: number;
      giveUpAt: number;
      settle: (outcome: Outcome) => void;
      fail: (error: Error) => void;
    }
  >();
  private polling = false;

  constructor(
    private readonly app: TrackedApp<R>,
    private readonly options: {
      /** How long a request may take from submission to a terminal state. */
      readonly timeoutMillis: number;
      readonly pollMillis: number;
    },
  ) {}

  /** Submits the request and resolves once it is terminal (rejects if refused or past the timeout). */
  async complete(request: R): Promise<Outcome> {
    const id = this.app.idOf(request);
    const submittedAt = Date.now();
    const submitted = await submitUntilAnswered(
      () => this.app.submit(request),
      () => false,
      SUBMIT_GIVE_UP_MILLIS,
      // The bench runs on the wall clock.
      { ...MACHINE_PACE, pace: MACHINE_PACE },
    );
    if ('refused' in submitted) throw new Error(`${id} refused: ${submitted.refused}`);
    const outcome = new Promise<Outcome>((settle, fail) =>
      this.waiting.set(id, { submittedAt, giveUpAt: submittedAt + this.options.timeoutMillis, settle, fail }),
    );
    if (!this.polling) void this.poll();
    return outcome;
  }

  /** Completes every request with at most `concurrency` in flight (a closed loop). */
  async completeAll(requests: readonly R[], concurrency: number): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    await forEachLimited(requests, concurrency, async (request) => {
      outcomes.push(await this.complete(request));
    });
    return outcomes;
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      while (this.waiting.size > 0) {
        await sleep(this.options.pollMillis);
        const seen = await this.app.read([...this.waiting.keys()]);
        const now = Date.now();
        for (const { id, state, attempt } of seen) {
          const waiter = this.waiting.get(id);
          if (!waiter || !this.app.isTerminal(state)) continue;
          this.waiting.delete(id);
          waiter.settle({
            id,
            state,
            ...(attempt === undefined ? {} : { attempt }),
            millis: now - waiter.submittedAt,
          });
        }
        for (const [id, waiter] of this.waiting) {
          if (now < waiter.giveUpAt) continue;
          this.waiting.delete(id);
          waiter.fail(new Error(`${id} not terminal within ${this.options.timeoutMillis} ms`));
        }
      }
    } catch (error) {
      for (const waiter of this.waiting.values()) waiter.fail(error as Error);
      this.waiting.clear();
    } finally {
      this.polling = false;
    }
  }

  close(): void {
    this.app.close();
  }
}

/** An order of one item of `sku` (the fake services' scenarios are chosen by SKU). */
export function orderOf(orderId: string, sku: string): SubmitOrderRequest {
  return { orderId, customerId: 'bench', items: [{ sku, quantity: 1 }], totalCents: 1_200, currency: 'EUR' };
}

/** The order app: POST /orders, the state record's ProcessState and Attempt. */
export function ordersApp(target: LocalTarget): TrackedApp<SubmitOrderRequest> {
  const driver = new SystemDriver(target);
  const terminal: readonly string[] = TERMINAL_STATES;
  return {
    idOf: (order) => order.orderId,
    submit: (order) => driver.submit(order),
    read: async (ids) =>
      (await driver.records(ids)).map((record) => ({
        id: record.orderId,
        state: record.processState,
        attempt: record.attempt,
      })),
    isTerminal: (state) => terminal.includes(state),
    close: () => driver.close(),
  };
}

/** The delivery stack (checked against the stack's own constant; a type-only import keeps aws-cdk-lib out). */
export const DELIVERY_STACK: typeof DRONE_DELIVERY_STACK_NAME = 'DroneDelivery';
const DELIVERY_PREFIX = 'DELIVERY#';

/** A delivery that goes well: one small package, 2 km, within every drone's range and payload. */
export function deliveryOf(deliveryId: string): SubmitDeliveryRequest {
  const pickup = { lat: 47.6062, lon: -122.3321 };
  return {
    deliveryId,
    ownerId: 'bench',
    pickup,
    dropoff: { lat: pickup.lat + 0.018, lon: pickup.lon },
    packages: [{ packageId: `${deliveryId}-parcel`, weightGrams: 1_000, size: 'SMALL' }],
  };
}

/** The delivery app: POST /deliveries, the Delivery service's DELIVERY# item's status. */
export function deliveriesApp(target: LocalTarget): TrackedApp<SubmitDeliveryRequest> {
  const driver = new DeliverySystemDriver(target, DELIVERY_STACK);
  const dynamodb = new DynamoDBClient({
    region: target.region,
    credentials: { ...target.credentials },
    endpoint: target.endpoints.dynamodb,
  });
  const table = stackView(target, DELIVERY_STACK).output('DeliveryTableName');
  const terminal: readonly string[] = TERMINAL_DELIVERY_STATUSES;
  return {
    idOf: (request) => request.deliveryId,
    submit: (request) => driver.submit(request),
    read: async (ids) => {
      const keys = ids.map((id) => ({ [TABLE_PARTITION_KEY]: { S: `${DELIVERY_PREFIX}${id}` } }));
      return (await consistentBatchGet(dynamodb, table, keys)).map((item) => ({
        id: String(item[TABLE_PARTITION_KEY]?.S).slice(DELIVERY_PREFIX.length),
        state: item.status?.S ?? DeliveryStatus.Requested,
      }));
    },
    isTerminal: (state) => terminal.includes(state),
    close: () => {
      dynamodb.destroy();
      driver.close();
    },
  };
}
