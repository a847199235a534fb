/**
 * What replacing a stream's event source mapping costs: a new AWS::Lambda::EventSourceMapping does
 * not start where the old one stopped but at its StartingPosition. On a DynamoDB or Kinesis stream,
 * TRIM_HORIZON reads everything the stream still holds again (a DynamoDB stream keeps 24 hours of
 * records: an outbox relay publishes those events a second time), and LATEST skips what was written
 * between the old mapping's last read and the new one's first poll (those events are never
 * published). Lambda says so itself, https://docs.aws.amazon.com/lambda/latest/dg/msk-starting-positions.html:
 * "During event source mapping creation, it may take several minutes to start polling events from
 * the stream", so LATEST "could miss events during a create or update"; and only an update keeps the
 * position ("You can update an event source mapping ... without losing your position in the stream
 * ... if you delete event source mapping and create it again, it will reset", UpdateEventSourceMapping).
 *
 * CloudFormation replaces a mapping when one of these changes (AWS's resource specification, as
 * @aws-cdk/cloudformation-diff reads it: EventSourceArn, StartingPosition, StartingPositionTimestamp,
 * SelfManagedEventSource and the two Kafka configurations; FunctionName, BatchSize, FilterCriteria and
 * the rest update in place), when the stream it names is replaced, and when its logical id changes
 * (a new mapping is created, the old one deleted). CloudFormation creates the new mapping before it
 * deletes the old: for the same function, users report Lambda refusing a second mapping of the
 * stream and the update failing ("provided mapping already exists", aws/aws-cdk#6942,
 * aws/serverless-application-model#1320), not documented by AWS, so the finding is a loss a release
 * may acknowledge, not a refusal.
 *
 * Only stream sources are judged (a queue's mapping holds no position: the messages stay in the queue).
 */
import {
  deepEqual,
  type ResourceDifference,
  ResourceImpact,
  type TemplateDiff,
} from '@aws-cdk/cloudformation-diff';
import { propertiesWith } from './properties-with';
import type { CfnTemplate } from './template';
import type { UpgradeFinding } from './upgrade-finding';

const MAPPING = 'AWS::Lambda::EventSourceMapping';

type Properties = Readonly<Record<string, unknown>>;

/** The impacts by which CloudFormation makes a new mapping (or may). */
const REPLACING = [ResourceImpact.WILL_REPLACE, ResourceImpact.MAY_REPLACE];

function replaces(impact: ResourceImpact | undefined): boolean {
  return impact !== undefined && REPLACING.includes(impact);
}

/** Which stream a mapping reads, in words, or undefined when it reads no DynamoDB or Kinesis stream. */
export function streamOf(template: CfnTemplate, properties: Properties): string | undefined {
  const arn = properties.EventSourceArn;
  if (typeof arn === 'string') {
    if (/^arn:[^:]+:dynamodb:.*\/stream\//.test(arn)) return `the DynamoDB stream ${arn}`;
    if (/^arn:[^:]+:kinesis:/.test(arn)) return `the Kinesis stream ${arn}`;
    return undefined;
  }
  const [logicalId, attribute] = referenceOf(arn);
  const type = logicalId === undefined ? undefined : template.Resources?.[logicalId]?.Type;
  if (type === 'AWS::DynamoDB::Table' || type === 'AWS::DynamoDB::GlobalTable') {
    return attribute === 'StreamArn' ? `the DynamoDB stream of ${logicalId}` : undefined;
  }
  if (type === 'AWS::Kinesis::Stream' || type === 'AWS::Kinesis::StreamConsumer') {
    return `the Kinesis stream ${logicalId}`;
  }
  // Imported or passed in: a position and no Kafka topic make it a stream of one of the two.
  const kafka = ['Topics', 'SelfManagedEventSource', 'AmazonManagedKafkaEventSourceConfig'].some(
    (name) => properties[name] !== undefined,
  );
  return type === undefined && properties.StartingPosition !== undefined && !kafka
    ? `the stream ${JSON.stringify(arn)}`
    : undefined;
}

/** The logical id (and attribute) an `Fn::GetAtt` or `Ref` names. */
function referenceOf(value: unknown): [string | undefined, string | undefined] {
  if (typeof value !== 'object' || value === null) return [undefined, undefined];
  const getAtt = (value as Record<string, unknown>)['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return [String(getAtt[0]), String(getAtt[1])];
  if (typeof getAtt === 'string') {
    const [id, ...attribute] = getAtt.split('.');
    return [id, attribute.join('.')];
  }
  const ref = (value as Record<string, unknown>).Ref;
  return typeof ref === 'string' ? [ref, undefined] : [undefined, undefined];
}

const REMEDY =
  "Keep the mapping's logical id (override it to the released one), its EventSourceArn and its StartingPosition; a mapping that must be replaced is released on its own, with the duplicates absorbed (its consumers deduplicating by event id) or the skipped records published again, and acknowledged";

/** What the new mapping does on the same stream, from its starting position. */
function restartWords(stream: string, after: Properties): string {
  const position = after.StartingPosition;
  switch (position) {
    case 'TRIM_HORIZON':
      return `the new mapping reads ${stream} from TRIM_HORIZON, its oldest record, not from where the old one stopped: it processes again what the old one already did (up to 24 hours of a DynamoDB stream, a Kinesis stream's whole retention), so an outbox relay publishes those events a second time`;
    case 'LATEST':
      return `the new mapping reads ${stream} from LATEST, not from where the old one stopped: what is written between the old one's last read and the new one's first poll (Lambda may take minutes to start polling a new mapping) is never processed, so an outbox relay never publishes those events`;
    case 'AT_TIMESTAMP':
      return `the new mapping reads ${stream} from ${JSON.stringify(after.StartingPositionTimestamp)}, not from where the old one stopped: what the old one had read since is processed again, what it had not read before is skipped`;
    default:
      return `the new mapping reads ${stream} from ${JSON.stringify(position)}, not from where the old one stopped`;
  }
}

/** The finding of one replaced stream mapping (`cause`: why CloudFormation replaces it). */
function finding(
  logicalId: string,
  cause: string,
  stream: string,
  before: Properties,
  after: Properties,
  streamReplaced: boolean,
): UpgradeFinding {
  const sameStream = deepEqual(before.EventSourceArn, after.EventSourceArn) && !streamReplaced;
  const what = sameStream
    ? restartWords(stream, after)
    : `it moves to ${stream}${streamReplaced ? ' (its table or stream is replaced: a new stream)' : ''}: what the old mapping had not read yet of its stream is never processed, and the new one starts at ${JSON.stringify(after.StartingPosition)}`;
  const overlap =
    sameStream && deepEqual(before.FunctionName, after.FunctionName)
      ? "; CloudFormation creates the new mapping before deleting the old one, and Lambda may refuse a second mapping of the same function on the stream (the update then fails: 'provided mapping already exists')"
      : sameStream
        ? '; CloudFormation creates the new mapping before deleting the old one: both read the stream meanwhile'
        : '';
  return {
    logicalId,
    type: MAPPING,
    rule: 'stream-mapping-replaced',
    reason: `would be replaced (${cause}): ${what}${overlap}. ${REMEDY}`,
  };
}

/**
 * The stream mappings an upgrade from `released` to `current` replaces: by a property that requires
 * it or a replaced stream (the diff's impact), or by a logical id that changes (a mapping removed and
 * one added on the same stream; the finding is the new one's).
 */
export function streamMappingReplacements(
  released: CfnTemplate,
  current: CfnTemplate,
  diff: TemplateDiff,
): UpgradeFinding[] {
  const found: UpgradeFinding[] = [];
  const removed: [string, Properties][] = [];
  const added: [string, Properties][] = [];
  const replaced = (logicalId: string | undefined) =>
    logicalId !== undefined && replaces(diff.resources.get(logicalId)?.changeImpact);
  diff.resources.forEachDifference((logicalId, change: ResourceDifference) => {
    if (change.oldResourceType !== MAPPING && change.newResourceType !== MAPPING) return;
    const before = (change.oldValue?.Properties ?? {}) as Properties;
    const after = (change.newValue?.Properties ?? {}) as Properties;
    if (change.isRemoval) return void removed.push([logicalId, before]);
    if (change.isAddition) return void added.push([logicalId, after]);
    if (change.resourceTypeChanged) return;
    if (!replaces(change.changeImpact)) return;
    const stream = streamOf(released, before);
    if (stream === undefined) return;
    const properties = propertiesWith(change, ...REPLACING);
    const [source] = referenceOf(after.EventSourceArn);
    const streamReplaced = replaced(source);
    const cause =
      properties.length > 0
        ? `${properties.join(', ')} change(s)`
        : streamReplaced
          ? `the stream it reads, of ${source}, is replaced`
          : 'a property it references is replaced';
    found.push(finding(logicalId, cause, streamOf(current, after) ?? stream, before, after, streamReplaced));
  });
  for (const [logicalId, after] of added) {
    const stream = streamOf(current, after);
    if (stream === undefined) continue;
    const old = removed.find(([, before]) => deepEqual(before.EventSourceArn, after.EventSourceArn));
    if (!old) continue;
    found.push(
      finding(
        logicalId,
        `its logical id changes from ${old[0]}: a new mapping`,
        stream,
        old[1],
        after,
        false,
      ),
    );
  }
  return found;
}
