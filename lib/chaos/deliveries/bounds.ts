/**
 * How long an accepted delivery may take to become terminal, from the settings the choreography was
 * synthesized with (SERVICE_SETTINGS of the functions, the queues' visibility timeouts, the
 * functions' timeouts, the fake fleet's flight times), so the liveness check moves with the
 * configuration instead of hard-coding seconds.
 */
import {
  REASON_CODE_DEFINITIONS,
  REASON_CODES,
  RemediationDecision,
  type RemediationSettings,
} from '../../../lambdas/choreography/contracts';
import { boundOf, type TerminalBound } from '../common/bounds';

export interface DeliveryBoundInput {
  readonly remediation: Pick<RemediationSettings, 'retryBaseSeconds' | 'retryMaxSeconds'>;
  readonly maxReceiveAttempts: number;
  /** The longest visibility timeout of the consumer queues (a failed receive waits this long). */
  readonly visibilityTimeoutSeconds: number;
  /** The longest consumer function timeout (a hung dependency holds the receive this long). */
  readonly functionTimeoutSeconds: number;
  readonly flight: { readonly pickupMillis: number; readonly flightMillis: number };
  /** How long the outbox relay may take to get an event out through its stream retries. */
  readonly relayRetryMillis: number;
  /** Most planned faults one delivery meets that each cost it redeliveries. */
  readonly faultsPerDelivery: number;
  /** Local machine allowance (worker start-up, pollers, a loaded CPU), stated in the summary. */
  readonly schedulingAllowanceMillis: number;
}

/** Remediation's back-off before the n-th RETRY or PIVOT (1-based): base x 2^(n-1), at most max. */
export function remediationBackoffSeconds(
  occurrence: number,
  settings: Pick<RemediationSettings, 'retryBaseSeconds' | 'retryMaxSeconds'>,
): number {
  return Math.min(settings.retryBaseSeconds * 2 ** (occurrence - 1), settings.retryMaxSeconds);
}

/** The longest wait any remediation ladder imposes: the back-offs of its RETRY and PIVOT rungs. */
export function longestLadderMillis(
  settings: Pick<RemediationSettings, 'retryBaseSeconds' | 'retryMaxSeconds'>,
): { millis: number; code: string } {
  let longest = { millis: 0, code: '-' };
  for (const code of REASON_CODES) {
    let occurrence = 0;
    let millis = 0;
    for (const rung of REASON_CODE_DEFINITIONS[code].remediation) {
      for (let time = 0; time < rung.times; time += 1) {
        occurrence += 1;
        if (rung.decision === RemediationDecision.Retry || rung.decision === RemediationDecision.Pivot) {
          millis += remediationBackoffSeconds(occurrence, settings) * 1000;
        }
      }
    }
    if (millis > longest.millis) longest = { millis, code };
  }
  return longest;
}

/**
 * Worst case: the longest remediation ladder's back-offs; each planned fault costing every receive
 * of a message (maxReceiveAttempts x (function timeout + visibility timeout)); one relay retry run
 * per fault; the flight; the local allowance. The runtime's downtime during a restart is added for
 * deliveries in flight then (by the checker).
 */
export function deliveryTerminalBound(input: DeliveryBoundInput): TerminalBound {
  const second = 1000;
  const ladder = longestLadderMillis(input.remediation);
  const perReceive = (input.functionTimeoutSeconds + input.visibilityTimeoutSeconds) * second;
  return boundOf([
    { name: `remediation back-offs (longest ladder: ${ladder.code})`, millis: ladder.millis },
    {
      name: `${input.faultsPerDelivery} faults x ${input.maxReceiveAttempts} receives x (function timeout + visibility)`,
      millis: input.faultsPerDelivery * input.maxReceiveAttempts * perReceive,
    },
    {
      name: `${input.faultsPerDelivery} faults x relay retries`,
      millis: input.faultsPerDelivery * input.relayRetryMillis,
    },
    { name: 'flight (pickup + flight)', millis: input.flight.pickupMillis + input.flight.flightMillis },
    { name: 'local scheduling allowance', millis: input.schedulingAllowanceMillis },
  ]);
}
