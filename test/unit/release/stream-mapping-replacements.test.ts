/**
 * The upgrade check on a replaced stream event source mapping (lib/release/stream-mapping-replacements.ts),
 * on template pairs shaped like the outbox relays' (a table's stream read from TRIM_HORIZON by a
 * relay function), through @aws-cdk/cloudformation-diff's real resource specification: which
 * changes replace the mapping (and fail the check, saying what the new mapping re-reads or skips
 * and what to do), which update it in place (and pass), and that a queue's mapping is never judged.
 */
import {
  type CfnResource,
  type CfnTemplate,
  checkUpgrade,
  readReleasedTemplate,
  type UpgradeFinding,
} from '../../../lib/release';

const RELAY_MAPPING = 'RelayFunctionDynamoDBEventSourceTable';
const QUEUE_MAPPING = 'ConsumerFunctionSqsEventSourceQueue';

/** A released template: a retained table with a stream, its relay's mapping, a queue and its consumer's. */
function released(): { Resources: Record<string, CfnResource> } {
  return {
    Resources: {
      Table: {
        Type: 'AWS::DynamoDB::Table',
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: {
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
          StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
        },
      },
      RelayFunction: { Type: 'AWS::Lambda::Function', Properties: { Handler: 'relay.handler' } },
      OtherRelayFunction: { Type: 'AWS::Lambda::Function', Properties: { Handler: 'relay2.handler' } },
      [RELAY_MAPPING]: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: { 'Fn::GetAtt': ['Table', 'StreamArn'] },
          FunctionName: { Ref: 'RelayFunction' },
          StartingPosition: 'TRIM_HORIZON',
          BatchSize: 10,
          MaximumRecordAgeInSeconds: 86400,
        },
      },
      Queue: { Type: 'AWS::SQS::Queue', DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' },
      OtherQueue: { Type: 'AWS::SQS::Queue', DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' },
      ConsumerFunction: { Type: 'AWS::Lambda::Function', Properties: { Handler: 'consumer.handler' } },
      [QUEUE_MAPPING]: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: { 'Fn::GetAtt': ['Queue', 'Arn'] },
          FunctionName: { Ref: 'ConsumerFunction' },
          BatchSize: 10,
        },
      },
    },
  };
}

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

/** `released()` with `change` applied to a copy. */
function current(change: (resources: Resources) => void): CfnTemplate {
  const template = structuredClone(released()) as unknown as { Resources: Resources };
  change(template.Resources);
  return template as CfnTemplate;
}

const relay = (resources: Resources) => (resources[RELAY_MAPPING] as Resources[string]).Properties;

const verdicts = (findings: readonly UpgradeFinding[]) =>
  findings.map((finding) => [finding.logicalId, finding.rule]);

describe('a replaced stream event source mapping', () => {
  it('fails a changed StartingPosition: LATEST skips what is written during the swap; same function, Lambda may refuse', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        relay(resources).StartingPosition = 'LATEST';
      }),
    );
    expect(verdicts(report.failures)).toEqual([[RELAY_MAPPING, 'stream-mapping-replaced']]);
    const [finding] = report.failures;
    expect(finding?.reason).toContain('would be replaced (StartingPosition change(s))');
    expect(finding?.reason).toContain('the DynamoDB stream of Table from LATEST');
    expect(finding?.reason).toContain('never processed');
    expect(finding?.reason).toContain('provided mapping already exists');
    expect(finding?.reason).toContain("Keep the mapping's logical id");
    expect(report.changes).toEqual([]);
  });

  it('fails a new logical id on the same stream: TRIM_HORIZON reads the stream again, both mappings read meanwhile', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        const mapping = resources[RELAY_MAPPING] as Resources[string];
        // Another relay function takes the stream (a construct renamed: new ids for both).
        mapping.Properties.FunctionName = { Ref: 'OtherRelayFunction' };
        resources.RenamedRelayMapping = mapping;
        delete resources[RELAY_MAPPING];
      }),
    );
    expect(verdicts(report.failures)).toEqual([['RenamedRelayMapping', 'stream-mapping-replaced']]);
    const [finding] = report.failures;
    expect(finding?.reason).toContain(`its logical id changes from ${RELAY_MAPPING}: a new mapping`);
    expect(finding?.reason).toContain('from TRIM_HORIZON, its oldest record');
    expect(finding?.reason).toContain('publishes those events a second time');
    expect(finding?.reason).toContain('both read the stream meanwhile');
    expect(report.changes).toEqual([`${RELAY_MAPPING} (AWS::Lambda::EventSourceMapping) removed (deleted)`]);
  });

  it('fails a mapping moved to another stream: the old stream’s unread records are never processed by it', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        resources.OtherTable = structuredClone(resources.Table) as Resources[string];
        relay(resources).EventSourceArn = { 'Fn::GetAtt': ['OtherTable', 'StreamArn'] };
      }),
    );
    expect(verdicts(report.failures)).toEqual([[RELAY_MAPPING, 'stream-mapping-replaced']]);
    expect(report.failures[0]?.reason).toContain(
      'would be replaced (EventSourceArn change(s)): it moves to the DynamoDB stream of OtherTable',
    );
  });

  it('fails a mapping whose table is replaced as reading a new stream, besides the table itself', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        (resources.Table as Resources[string]).Properties.KeySchema = [
          { AttributeName: 'id', KeyType: 'HASH' },
        ];
        (resources.Table as Resources[string]).Properties.AttributeDefinitions = [
          { AttributeName: 'id', AttributeType: 'S' },
        ];
      }),
    );
    expect(verdicts(report.failures)).toEqual([
      [RELAY_MAPPING, 'stream-mapping-replaced'],
      ['Table', 'replaced'],
    ]);
    expect(report.failures[0]?.reason).toContain('is replaced: a new stream');
  });

  it('fails a Kinesis stream mapping replaced, and one reading a stream named by a literal ARN', () => {
    for (const arn of [
      'arn:aws:kinesis:eu-west-1:123456789012:stream/events',
      'arn:aws:dynamodb:eu-west-1:123456789012:table/T/stream/2026-01-01T00:00:00.000',
    ]) {
      const base = current((resources) => {
        relay(resources).EventSourceArn = arn;
      });
      const report = checkUpgrade(
        base,
        current((resources) => {
          relay(resources).EventSourceArn = arn;
          relay(resources).StartingPosition = 'LATEST';
        }),
      );
      expect(verdicts(report.failures)).toEqual([[RELAY_MAPPING, 'stream-mapping-replaced']]);
      expect(report.failures[0]?.reason).toContain(arn);
    }
  });

  it('is acknowledged like a loss, with its reason', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        relay(resources).StartingPosition = 'LATEST';
      }),
      {
        acknowledgments: [
          {
            logicalId: RELAY_MAPPING,
            rule: 'stream-mapping-replaced',
            reason: 'the relay was drained and its table is written to by nobody during the release',
          },
        ],
      },
    );
    expect(report.failures).toEqual([]);
    expect(verdicts(report.acknowledged)).toEqual([[RELAY_MAPPING, 'stream-mapping-replaced']]);
  });

  it('passes what updates a mapping in place: batch size, record age, function, filters', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        relay(resources).BatchSize = 20;
        relay(resources).MaximumRecordAgeInSeconds = 3600;
        relay(resources).FunctionName = { Ref: 'OtherRelayFunction' };
        relay(resources).FilterCriteria = { Filters: [{ Pattern: '{"eventName":["INSERT"]}' }] };
      }),
    );
    expect(report.failures).toEqual([]);
    expect(report.changes).toEqual([
      `${RELAY_MAPPING} (AWS::Lambda::EventSourceMapping) updated: FunctionName, BatchSize, MaximumRecordAgeInSeconds, FilterCriteria`,
    ]);
  });

  it('does not judge a queue mapping replaced or renamed: the messages stay in the queue', () => {
    const moved = checkUpgrade(
      released(),
      current((resources) => {
        (resources[QUEUE_MAPPING] as Resources[string]).Properties.EventSourceArn = {
          'Fn::GetAtt': ['OtherQueue', 'Arn'],
        };
      }),
    );
    expect(moved.failures).toEqual([]);
    expect(moved.changes).toEqual([
      `${QUEUE_MAPPING} (AWS::Lambda::EventSourceMapping) replaced: EventSourceArn`,
    ]);
    const renamed = checkUpgrade(
      released(),
      current((resources) => {
        resources.RenamedQueueMapping = resources[QUEUE_MAPPING] as Resources[string];
        delete resources[QUEUE_MAPPING];
      }),
    );
    expect(renamed.failures).toEqual([]);
  });

  it("finds every outbox relay's mapping of the released DroneDelivery template, renamed, and none of its queue mappings", () => {
    const template = readReleasedTemplate('demo', 'DroneDelivery');
    if (!template) throw new Error('no released DroneDelivery template');
    const mappings = Object.entries(template.Resources ?? {}).filter(
      ([, resource]) => resource.Type === 'AWS::Lambda::EventSourceMapping',
    );
    const relays = mappings
      .filter(([, resource]) => JSON.stringify(resource.Properties?.EventSourceArn).includes('StreamArn'))
      .map(([id]) => id);
    expect(relays).toHaveLength(5);
    const renamed = structuredClone(template) as { Resources: Record<string, CfnResource> };
    for (const [id, resource] of mappings) {
      renamed.Resources[`${id}Renamed`] = resource;
      delete renamed.Resources[id];
    }
    const report = checkUpgrade(template, renamed);
    expect(verdicts(report.failures).sort()).toEqual(
      relays.map((id) => [`${id}Renamed`, 'stream-mapping-replaced']).sort(),
    );
  });
});
