/**
 * EventBridge, locally: event buses with their rules (event patterns matched by event-pattern.ts)
 * delivering to SQS queues, SNS topics, Lambda functions and state machines; schedule rules as
 * timers (fired once at start, then at the rate, skipped while the rule is disabled); and the
 * PutEvents API for handlers.
 */

import type { PutEventsResponse } from '@aws-sdk/client-eventbridge';
import { type ClockTimer, type RuntimeClock, WallClock } from '../clock';
import { mintUuid } from '../minted-ids';
import { AwsApiError } from '../protocol/aws-api-error';
import { matchesEventPattern } from './event-pattern';
import { MAX_PUT_EVENTS_BYTES, MAX_PUT_EVENTS_ENTRIES } from './limits';

export interface RuleTarget {
  readonly id: string;
  readonly arn: string;
  readonly input?: string;
  readonly inputPath?: string;
  readonly inputTransformer?: {
    readonly InputPathsMap?: Record<string, string>;
    readonly InputTemplate: string;
  };
  readonly messageGroupId?: string;
  /** The role EventBridge delivers with (RoleArn: state machines, other buses). @default - none */
  readonly roleArn?: string;
}

export interface EventRule {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly busName: string;
  readonly pattern?: unknown;
  /** Milliseconds between runs of a schedule rule. */
  readonly rateMillis?: number;
  /** The schedule rule's expression as the template wrote it (DescribeRule, ListRules). */
  readonly scheduleExpression?: string;
  /**
   * A disabled rule (State DISABLED in the template or PutRule, or DisableRule) matches nothing
   * and a disabled schedule does not fire.
   */
  readonly disabled?: boolean;
  readonly targets: readonly RuleTarget[];
}

/** A target as the template (Targets) and PutTargets write it. */
export function ruleTarget(target: Readonly<Record<string, unknown>>): RuleTarget {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const sqsParameters = target.SqsParameters as Record<string, unknown> | undefined;
  const messageGroupId = text(sqsParameters?.MessageGroupId);
  const input = text(target.Input);
  const inputPath = text(target.InputPath);
  const roleArn = text(target.RoleArn);
  return {
    id: String(target.Id),
    arn: String(target.Arn),
    ...(input !== undefined ? { input } : {}),
    ...(inputPath !== undefined ? { inputPath } : {}),
    ...(target.InputTransformer
      ? { inputTransformer: target.InputTransformer as RuleTarget['inputTransformer'] }
      : {}),
    ...(messageGroupId ? { messageGroupId } : {}),
    ...(roleArn ? { roleArn } : {}),
  };
}

/** The name of a bus an API call or template names by name or ARN (the default bus when none). */
export function busNameOf(reference: unknown): string {
  if (typeof reference !== 'string' || reference === '') return 'default';
  return reference.replace(/^arn:[^:]*:events:[^:]*:[^:]*:event-bus\//, '');
}

/** A bus's ARN, from its name or ARN (the default bus when none). */
export function busArn(region: string, accountId: string, reference: unknown): string {
  return `arn:aws:events:${region}:${accountId}:event-bus/${busNameOf(reference)}`;
}

/** A rule's ARN: `rule/<name>` on the default bus, `rule/<bus>/<name>` on a custom one. */
export function ruleArn(region: string, accountId: string, busName: string, name: string): string {
  return `arn:aws:events:${region}:${accountId}:rule/${busName === 'default' ? '' : `${busName}/`}${name}`;
}

/** How a target receives its input; implemented by the runtime (SQS, SNS, Lambda, Step Functions). */
export type TargetDelivery = (target: RuleTarget, input: string, rule: EventRule) => Promise<void>;

export interface CloudWatchEvent {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: unknown;
}

const RATE = /^rate\(\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*\)$/;
const UNIT_MILLIS: Record<string, number> = {
  minute: 60_000,
  minutes: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** `rate(5 minutes)` -> 300000; anything else (cron, at) -> an error naming the expression. */
export function parseRateExpression(expression: string): number {
  const match = RATE.exec(expression.trim());
  const amount = Number(match?.[1]);
  const unit = match?.[2];
  if (!match || !unit || !Number.isInteger(amount) || amount < 1) {
    throw new Error(
      `Schedule expression '${expression}' is not supported locally (only rate(N minute|hour|day[s]))`,
    );
  }
  return amount * (UNIT_MILLIS[unit] ?? 60_000);
}

/** Reads a dotted JSONPath ($, $.a.b) from a value; EventBridge InputPath / InputPathsMap. */
export function selectPath(value: unknown, path: string): unknown {
  if (path === '$') return value;
  if (!path.startsWith('$.')) throw new Error(`Unsupported JSONPath '${path}' (use $ or $.field.field)`);
  let current: unknown = value;
  for (const key of path.slice(2).split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** What a target receives for an event: Input, InputPath or InputTransformer, else the event. */
export function targetInput(target: RuleTarget, event: CloudWatchEvent): string {
  if (target.input !== undefined) return target.input;
  if (target.inputPath !== undefined) return JSON.stringify(selectPath(event, target.inputPath) ?? null);
  if (target.inputTransformer) {
    const values: Record<string, unknown> = {};
    for (const [name, path] of Object.entries(target.inputTransformer.InputPathsMap ?? {})) {
      values[name] = selectPath(event, path);
    }
    return target.inputTransformer.InputTemplate.replace(/<([A-Za-z0-9_.-]+)>/g, (whole, name: string) => {
      if (name === 'aws.events.event') return JSON.stringify(event);
      if (name === 'aws.events.event.json') return JSON.stringify(event);
      if (name === 'aws.events.rule-arn' || name === 'aws.events.rule-name') return whole;
      if (!(name in values)) return whole;
      const value = values[name];
      return typeof value === 'string' ? value : JSON.stringify(value ?? null);
    });
  }
  return JSON.stringify(event);
}

export interface LocalEventBridgeOptions {
  readonly region: string;
  readonly accountId: string;
  readonly deliver: TargetDelivery;
  readonly onDelivered?: (rule: EventRule, target: RuleTarget, event: CloudWatchEvent) => void;
  readonly onProblem: (message: string) => void;
  /**
   * Told of each entry PutEvents accepted onto a bus, with its size as AWS bills it (the runtime's
   * metering). @default - not told
   */
  readonly onEventAccepted?: (busName: string, entryBytes: number) => void;
  /** Schedules and event times run on it. @default - the wall clock */
  readonly clock?: RuntimeClock;
}

/**
 * An entry's size as EventBridge computes it for billing and its size limit (limits.ts):
 * Time (14 bytes when given), Source, DetailType, Detail and each Resource, in UTF-8
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html).
 */
export function eventEntryBytes(entry: Readonly<Record<string, unknown>>): number {
  const text = (value: unknown) => (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  const resources = Array.isArray(entry.Resources) ? entry.Resources : [];
  return (
    (entry.Time === undefined ? 0 : 14) +
    text(entry.Source) +
    text(entry.DetailType) +
    text(entry.Detail) +
    resources.reduce((sum: number, resource) => sum + text(resource), 0)
  );
}

export class LocalEventBridge {
  private readonly buses = new Set<string>(['default']);
  private readonly rules: EventRule[] = [];
  private readonly timers = new Set<ClockTimer>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly clock: RuntimeClock;
  private stopped = false;

  constructor(private readonly options: LocalEventBridgeOptions) {
    this.clock = options.clock ?? new WallClock();
  }

  addBus(name: string): void {
    this.buses.add(name);
  }

  addRule(rule: EventRule): void {
    this.rules.push(rule);
  }

  hasBus(name: string): boolean {
    return this.buses.has(name);
  }

  /** The rules of a bus, in the order they were added. */
  rulesOn(busName: string): readonly EventRule[] {
    return this.rules.filter((rule) => rule.busName === busName);
  }

  /** Puts `rule` in the place of the rule of its bus with its name, or adds it. */
  setRule(rule: EventRule): void {
    const index = this.rules.findIndex((known) => known.busName === rule.busName && known.name === rule.name);
    if (index >= 0) this.rules[index] = rule;
    else this.rules.push(rule);
  }

  removeRule(busName: string, name: string): void {
    const index = this.rules.findIndex((known) => known.busName === busName && known.name === name);
    if (index >= 0) this.rules.splice(index, 1);
  }

  /**
   * Schedule rules: fire once now, then at their rate. Each tick reads the rule as it is then (a
   * rule disabled, replaced or deleted since start), so a disabled schedule skips its ticks and,
   * enabled again, fires at its next tick: the cadence set at start is kept.
   */
  startSchedules(): void {
    for (const { busName, name, rateMillis } of this.rules) {
      if (rateMillis === undefined) continue;
      const fire = () => {
        const current = this.rules.find((rule) => rule.busName === busName && rule.name === name);
        if (current && !current.disabled) this.fireSchedule(current);
      };
      fire();
      this.every(rateMillis, fire);
    }
  }

  /** Calls `tick` every `periodMillis` on the clock until stopped. */
  private every(periodMillis: number, tick: () => void): void {
    const arm = () => {
      const timer = this.clock.setTimer(() => {
        this.timers.delete(timer);
        if (this.stopped) return;
        arm();
        tick();
      }, periodMillis);
      this.timers.add(timer);
    };
    arm();
  }

  private fireSchedule(rule: EventRule): void {
    const event: CloudWatchEvent = {
      version: '0',
      id: mintUuid(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: this.options.accountId,
      time: isoSeconds(this.clock.date()),
      region: this.options.region,
      resources: [rule.arn],
      detail: {},
    };
    this.route(rule, event);
  }

  private busName(reference: unknown): string {
    if (reference === undefined || reference === null || reference === '') return 'default';
    const text = String(reference);
    return text.startsWith('arn:') ? text.slice(text.lastIndexOf('/') + 1) : text;
  }

  /** PutEvents: validates each entry like EventBridge (per-entry errors), then routes it. */
  async putEvents(entries: readonly Record<string, unknown>[]): Promise<PutEventsResponse> {
    // AWS's request validation wording ("1 validation error detected: ...", the service's model
    // constraint); the size refusal's text is the one AWS answers as observed (not in its docs).
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_PUT_EVENTS_ENTRIES) {
      throw new AwsApiError(
        'ValidationException',
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length ${
          Array.isArray(entries) && entries.length > 0
            ? `less than or equal to ${MAX_PUT_EVENTS_ENTRIES}`
            : 'greater than or equal to 1'
        }`,
      );
    }
    if (entries.reduce((sum, entry) => sum + eventEntryBytes(entry), 0) > MAX_PUT_EVENTS_BYTES) {
      throw new AwsApiError(
        'ValidationException',
        'Total size of the entries in the request is over the limit.',
      );
    }
    let failed = 0;
    const results = entries.map((entry) => {
      const bus = this.busName(entry.EventBusName);
      const time = entryTime(entry.Time, this.clock);
      const problem = !this.buses.has(bus)
        ? `Event bus ${bus} does not exist.`
        : typeof entry.Source !== 'string' || entry.Source === ''
          ? 'Parameter Source is not valid.'
          : typeof entry.DetailType !== 'string' || entry.DetailType === ''
            ? 'Parameter DetailType is not valid.'
            : typeof entry.Detail !== 'string' || !isJsonObject(entry.Detail)
              ? 'Parameter Detail is not valid.'
              : time === undefined
                ? 'Parameter Time is not valid.'
                : undefined;
      if (problem) {
        failed += 1;
        return {
          ErrorCode: problem.includes('does not exist') ? 'ResourceNotFoundException' : 'InvalidArgument',
          ErrorMessage: problem,
        };
      }
      const event: CloudWatchEvent = {
        version: '0',
        id: mintUuid(),
        'detail-type': String(entry.DetailType),
        source: String(entry.Source),
        account: this.options.accountId,
        time: isoSeconds(time ?? this.clock.date()),
        region: this.options.region,
        resources: Array.isArray(entry.Resources) ? entry.Resources.map(String) : [],
        detail: JSON.parse(String(entry.Detail)) as unknown,
      };
      for (const rule of this.rules) {
        if (rule.busName !== bus || rule.pattern === undefined || rule.disabled) continue;
        let matches = false;
        try {
          matches = matchesEventPattern(rule.pattern, event);
        } catch (error) {
          this.options.onProblem(`rule ${rule.logicalId}: ${(error as Error).message}`);
        }
        if (matches) this.route(rule, event);
      }
      this.options.onEventAccepted?.(bus, eventEntryBytes(entry));
      return { EventId: event.id };
    });
    return { FailedEntryCount: failed, Entries: results };
  }

  private route(rule: EventRule, event: CloudWatchEvent): void {
    for (const target of rule.targets) {
      const delivery = (async () => {
        try {
          await this.options.deliver(target, targetInput(target, event), rule);
          this.options.onDelivered?.(rule, target, event);
        } catch (error) {
          this.options.onProblem(`rule ${rule.logicalId} target ${target.id}: ${(error as Error).message}`);
        }
      })();
      this.inFlight.add(delivery);
      void delivery.finally(() => this.inFlight.delete(delivery));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) timer.cancel();
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * An entry's Time: absent is now; the SDKs send epoch seconds (a number, the JSON protocol's
 * timestamp), the CLI may send those as text or an ISO date. Undefined when it is none of these.
 */
function entryTime(value: unknown, clock: RuntimeClock): Date | undefined {
  if (value === undefined || value === null || value === '') return clock.date();
  const seconds = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  const date = Number.isFinite(seconds)
    ? new Date(seconds * 1000)
    : new Date(typeof value === 'string' ? value : Number.NaN);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** EventBridge times have second precision: 2024-01-01T00:00:00Z. */
function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
