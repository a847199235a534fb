/**
 * What the capacity model reads of a synthesized template: the settings of ours that decide where
 * a quota binds (FIFO queues and whether high throughput is on, message groups a rule fixes, event
 * source batch sizes and maximum concurrency, reserved concurrency, index keys and how many
 * partitions their shard counts spread writes over, the admission counters, API throttles). Plain
 * CloudFormation JSON in, plain numbers out, so hand-made templates test it.
 */
import { EnvKey, StateAttr } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { TemplateResources } from './default-templates';

export interface QueueFacts {
  readonly fifo: boolean;
  /** DeduplicationScope messageGroup and FifoThroughputLimit perMessageGroupId. */
  readonly highThroughput: boolean;
  /** The one message group id a rule sets on everything it delivers here. @default - groups set by the senders */
  readonly fixedMessageGroup?: string;
}

/** An event source mapping: a function reading a queue (or a stream: no queue). */
export interface EventSourceFacts {
  readonly functionId: string;
  readonly queueId?: string;
  readonly batchSize: number;
  /** ScalingConfig.MaximumConcurrency. @default - up to the account's concurrency */
  readonly maxConcurrency?: number;
}

/** A global secondary index and the partitions its writes spread over at the least. */
export interface IndexFacts {
  readonly tableId: string;
  readonly indexName: string;
  readonly hashKey: string;
  /** Projection ALL: an index entry is as large as the item. */
  readonly projectsAll: boolean;
  /** Distinct values of the hash key writes spread over (a shard count), or 1 when unknown. */
  readonly partitions: number;
  /** Where `partitions` comes from, in words. */
  readonly partitionsFrom: string;
}

/** A table whose every request goes to a few items (counters). */
export interface HotItemsFacts {
  readonly tableId: string;
  readonly items: number;
  readonly what: string;
}

export interface ApiThrottleFacts {
  readonly apiId: string;
  /** `stage`, or `usage plan <id> (per API key)`. */
  readonly what: string;
  /** The usage plan's logical id. @default - the stage's throttle */
  readonly usagePlanId?: string;
  readonly rateLimit: number;
}

export interface TemplateFacts {
  readonly queues: Readonly<Record<string, QueueFacts>>;
  /** FIFO topics by logical id; high throughput: FifoThroughputScope MessageGroup. */
  readonly fifoTopics: Readonly<Record<string, { readonly highThroughput: boolean }>>;
  readonly eventSources: readonly EventSourceFacts[];
  /** ReservedConcurrentExecutions by function. */
  readonly reservedConcurrency: Readonly<Record<string, number>>;
  readonly indexes: readonly IndexFacts[];
  readonly hotItems: readonly HotItemsFacts[];
  readonly apiThrottles: readonly ApiThrottleFacts[];
}

type Props = Readonly<Record<string, unknown>>;
interface Reference {
  readonly Ref?: string;
  readonly 'Fn::GetAtt'?: readonly [string, string];
}
const idOf = (value: unknown): string | undefined =>
  (value as Reference | undefined)?.Ref ?? (value as Reference | undefined)?.['Fn::GetAtt']?.[0];

function ofType(resources: TemplateResources, type: string): [string, Props][] {
  return Object.entries(resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([id, resource]) => [id, resource.Properties ?? {}]);
}

/** The first value the functions' environments give `key`, as text. */
function environmentValue(resources: TemplateResources, key: string): string | undefined {
  for (const [, props] of ofType(resources, 'AWS::Lambda::Function')) {
    const value = (props.Environment as { Variables?: Props } | undefined)?.Variables?.[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/** Admission shards and the admission table, from the functions' ADMISSION_SETTINGS and table name. */
function admissionOf(resources: TemplateResources): { shards: number; tableId?: string } | undefined {
  const settings = environmentValue(resources, EnvKey.AdmissionSettings);
  if (settings === undefined) return undefined;
  const shards = Number((JSON.parse(settings) as { shards?: unknown }).shards);
  let tableId: string | undefined;
  for (const [, props] of ofType(resources, 'AWS::Lambda::Function')) {
    const variables = (props.Environment as { Variables?: Props } | undefined)?.Variables;
    tableId ??= idOf(variables?.[EnvKey.AdmissionTableName]);
  }
  return { shards, ...(tableId && { tableId }) };
}

/** Partitions a hash key's values spread writes over: the shard counts the template sets. */
function partitionsOf(resources: TemplateResources, hashKey: string): { partitions: number; from: string } {
  if (hashKey === StateAttr.DueShard) {
    const count = Number(environmentValue(resources, EnvKey.DueShardCount));
    if (count > 0) return { partitions: count, from: `${EnvKey.DueShardCount} ${count}` };
  }
  if (hashKey === StateAttr.AdmissionShard) {
    const shards = admissionOf(resources)?.shards ?? 0;
    if (shards > 0) return { partitions: shards, from: `${EnvKey.AdmissionSettings} shards ${shards}` };
  }
  return { partitions: 1, from: 'a key of few values: the busiest value may take every write' };
}

function indexesOf(resources: TemplateResources): IndexFacts[] {
  return ofType(resources, 'AWS::DynamoDB::Table').flatMap(([tableId, props]) =>
    ((props.GlobalSecondaryIndexes ?? []) as Props[]).map((index) => {
      const keys = index.KeySchema as { AttributeName: string; KeyType: string }[];
      const hashKey = keys.find((key) => key.KeyType === 'HASH')?.AttributeName ?? '';
      const { partitions, from } = partitionsOf(resources, hashKey);
      return {
        tableId,
        indexName: String(index.IndexName),
        hashKey,
        projectsAll: (index.Projection as Props | undefined)?.ProjectionType === 'ALL',
        partitions,
        partitionsFrom: from,
      };
    }),
  );
}

function apiThrottlesOf(resources: TemplateResources): ApiThrottleFacts[] {
  const stages = ofType(resources, 'AWS::ApiGateway::Stage').flatMap(([, props]) => {
    const apiId = idOf(props.RestApiId);
    const all = ((props.MethodSettings ?? []) as Props[]).find(
      (setting) => setting.ResourcePath === '/*' && setting.HttpMethod === '*',
    );
    const rateLimit = Number(all?.ThrottlingRateLimit);
    return apiId && rateLimit > 0 ? [{ apiId, what: 'stage', rateLimit }] : [];
  });
  const plans = ofType(resources, 'AWS::ApiGateway::UsagePlan').flatMap(([planId, props]) => {
    const rateLimit = Number((props.Throttle as Props | undefined)?.RateLimit);
    if (!(rateLimit > 0)) return [];
    return ((props.ApiStages ?? []) as Props[]).flatMap((stage) => {
      const apiId = idOf(stage.ApiId);
      return apiId
        ? [{ apiId, what: `usage plan ${planId} (per API key)`, usagePlanId: planId, rateLimit }]
        : [];
    });
  });
  return [...stages, ...plans];
}

export function templateFacts(resources: TemplateResources): TemplateFacts {
  const fixedGroups = new Map<string, string>();
  for (const [, props] of ofType(resources, 'AWS::Events::Rule')) {
    for (const target of (props.Targets ?? []) as Props[]) {
      const group = (target.SqsParameters as Props | undefined)?.MessageGroupId;
      const queueId = idOf(target.Arn);
      if (typeof group === 'string' && queueId) fixedGroups.set(queueId, group);
    }
  }
  const queues = Object.fromEntries(
    ofType(resources, 'AWS::SQS::Queue').map(([id, props]) => {
      const group = fixedGroups.get(id);
      const facts: QueueFacts = {
        fifo: props.FifoQueue === true,
        highThroughput:
          props.DeduplicationScope === 'messageGroup' && props.FifoThroughputLimit === 'perMessageGroupId',
        ...(group !== undefined && { fixedMessageGroup: group }),
      };
      return [id, facts];
    }),
  );
  const fifoTopics = Object.fromEntries(
    ofType(resources, 'AWS::SNS::Topic')
      .filter(([, props]) => props.FifoTopic === true)
      .map(([id, props]) => [id, { highThroughput: props.FifoThroughputScope === 'MessageGroup' }]),
  );
  const eventSources = ofType(resources, 'AWS::Lambda::EventSourceMapping').flatMap(([, props]) => {
    const functionId = idOf(props.FunctionName);
    if (!functionId) return [];
    const sourceId = idOf(props.EventSourceArn);
    const maxConcurrency = Number((props.ScalingConfig as Props | undefined)?.MaximumConcurrency);
    const facts: EventSourceFacts = {
      functionId,
      ...(sourceId && resources[sourceId]?.Type === 'AWS::SQS::Queue' && { queueId: sourceId }),
      batchSize: Number(props.BatchSize ?? 10),
      ...(maxConcurrency > 0 && { maxConcurrency }),
    };
    return [facts];
  });
  const reservedConcurrency = Object.fromEntries(
    ofType(resources, 'AWS::Lambda::Function')
      .filter(([, props]) => typeof props.ReservedConcurrentExecutions === 'number')
      .map(([id, props]) => [id, Number(props.ReservedConcurrentExecutions)]),
  );
  const admission = admissionOf(resources);
  const hotItems: HotItemsFacts[] =
    admission?.tableId === undefined
      ? []
      : [
          {
            tableId: admission.tableId,
            items: admission.shards,
            what: `admission counters (${EnvKey.AdmissionSettings} shards ${admission.shards})`,
          },
        ];
  return {
    queues,
    fifoTopics,
    eventSources,
    reservedConcurrency,
    indexes: indexesOf(resources),
    hotItems,
    apiThrottles: apiThrottlesOf(resources),
  };
}
