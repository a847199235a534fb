/**
 * The upgrade check on templates mutated from a small released one: each verdict the check claims
 * (a loss, a refusal, a plain change) from the change that causes it, through
 * @aws-cdk/cloudformation-diff's real resource specification (nothing mocked).
 */
import { type CfnResource, type CfnTemplate, checkUpgrade, type UpgradeFinding } from '../../../lib/release';

const TABLE_KEY = [{ AttributeName: 'pk', KeyType: 'HASH' }];
const index = (
  name: string,
  attribute = name,
  projection: Record<string, unknown> = { ProjectionType: 'ALL' },
) => ({
  IndexName: name,
  KeySchema: [{ AttributeName: attribute, KeyType: 'HASH' }],
  Projection: projection,
});
const RETAIN = { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' };

/** A released template shaped like the stacks': retained tables, queues and keys, named buses. */
function released(): { Resources: Record<string, CfnResource> } {
  return {
    Resources: {
      Table: {
        Type: 'AWS::DynamoDB::Table',
        ...RETAIN,
        Properties: {
          KeySchema: TABLE_KEY,
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
          GlobalSecondaryIndexes: [index('ByStatus', 'status')],
          StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        },
      },
      Queue: {
        Type: 'AWS::SQS::Queue',
        ...RETAIN,
        Properties: { FifoQueue: true, ContentBasedDeduplication: true },
      },
      Key: { Type: 'AWS::KMS::Key', ...RETAIN, Properties: { EnableKeyRotation: true } },
      Topic: {
        Type: 'AWS::SNS::Topic',
        Properties: { FifoTopic: true, TopicName: 'Requests.fifo', KmsMasterKeyId: { Ref: 'Key' } },
      },
      Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'DeliveryBus' } },
      Archive: {
        Type: 'AWS::Events::Archive',
        Properties: { SourceArn: { 'Fn::GetAtt': ['Bus', 'Arn'] }, RetentionDays: 7 },
      },
      Policy: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          PolicyName: 'p',
          PolicyDocument: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: '*' }],
          },
        },
      },
    },
  };
}

/** `released()` with `change` applied to a copy. */
function current(change: (resources: Record<string, Record<string, unknown>>) => void): CfnTemplate {
  const template = structuredClone(released()) as { Resources: Record<string, Record<string, unknown>> };
  change(template.Resources);
  return template as CfnTemplate;
}

const props = (resource: Record<string, unknown> | undefined) =>
  resource?.Properties as Record<string, unknown>;

const verdicts = (findings: readonly UpgradeFinding[]) =>
  findings.map((finding) => [finding.logicalId, finding.rule]);

describe('checkUpgrade', () => {
  it('passes a template equal to the release, with nothing to report', () => {
    expect(checkUpgrade(released(), released())).toEqual({
      failures: [],
      acknowledged: [],
      unusedAcknowledgments: [],
      changes: [],
    });
  });

  it('fails a table whose logical id is renamed (a delete and a create), naming the id, type and why', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        resources.StateTable = resources.Table as Record<string, unknown>;
        delete resources.Table;
      }),
    );
    expect(report.failures).toEqual([
      {
        logicalId: 'Table',
        type: 'AWS::DynamoDB::Table',
        rule: 'orphaned',
        reason: expect.stringContaining('DeletionPolicy Retain keeps it outside the stack'),
      },
    ]);
    expect(report.changes).toEqual(['StateTable (AWS::DynamoDB::Table) added']);
  });

  it('fails a removed table that is not retained as deleted', () => {
    const base = released();
    const {
      DeletionPolicy: _d,
      UpdateReplacePolicy: _u,
      ...unretained
    } = base.Resources.Table as CfnResource;
    base.Resources.Table = unretained;
    const { Table: _table, ...rest } = base.Resources;
    expect(verdicts(checkUpgrade(base, { Resources: rest }).failures)).toEqual([['Table', 'deleted']]);
  });

  it('fails a table whose KeySchema changes (a replacement, though UpdateReplacePolicy keeps the old one)', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        props(resources.Table).KeySchema = [{ AttributeName: 'id', KeyType: 'HASH' }];
      }),
    );
    expect(report.failures).toEqual([
      {
        logicalId: 'Table',
        type: 'AWS::DynamoDB::Table',
        rule: 'replaced',
        reason: expect.stringMatching(
          /KeySchema require.*new one starts empty.*kept \(UpdateReplacePolicy Retain\)/,
        ),
      },
    ]);
  });

  it('fails two global secondary indexes created in one update, as CloudFormation refuses it', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        props(resources.Table).GlobalSecondaryIndexes = [
          index('ByStatus', 'status'),
          index('ByDue', 'due'),
          index('ByShard', 'shard'),
        ];
      }),
    );
    expect(report.failures).toEqual([
      expect.objectContaining({
        logicalId: 'Table',
        rule: 'gsi-creates-deletes',
        reason: expect.stringContaining('creates ByDue, ByShard'),
      }),
    ]);
  });

  it('allows one global secondary index created, and reports the table change', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        props(resources.Table).GlobalSecondaryIndexes = [index('ByStatus', 'status'), index('ByDue', 'due')];
      }),
    );
    expect(report.failures).toEqual([]);
    expect(report.changes).toEqual(['Table (AWS::DynamoDB::Table) updated: GlobalSecondaryIndexes']);
  });

  it('notes an index created in the same update as other resource changes (AWS recommends not)', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        props(resources.Table).GlobalSecondaryIndexes = [index('ByStatus', 'status'), index('ByDue', 'due')];
        props(resources.Archive).RetentionDays = 14;
      }),
    );
    expect(report.failures).toEqual([]);
    expect(report.changes).toContainEqual(
      expect.stringMatching(/^Table adds or deletes a global secondary index in the same update as 1 other/),
    );
  });

  it('fails one index deleted and another created, and a renamed index (both a delete and a create)', () => {
    for (const indexes of [[index('ByDue', 'due')], [index('ByStatusV2', 'status')]]) {
      const report = checkUpgrade(
        released(),
        current((resources) => {
          props(resources.Table).GlobalSecondaryIndexes = indexes;
        }),
      );
      expect(verdicts(report.failures)).toEqual([['Table', 'gsi-creates-deletes']]);
    }
  });

  it("allows one index deleted, and an index's contributor insights changed", () => {
    for (const indexes of [
      [],
      [{ ...index('ByStatus', 'status'), ContributorInsightsSpecification: { Enabled: true } }],
    ]) {
      const report = checkUpgrade(
        released(),
        current((resources) => {
          props(resources.Table).GlobalSecondaryIndexes = indexes;
        }),
      );
      expect(report.failures).toEqual([]);
    }
  });

  it('fails an index whose key schema or projection changes under the same name', () => {
    for (const changed of [
      index('ByStatus', 'state'),
      index('ByStatus', 'status', { ProjectionType: 'INCLUDE', NonKeyAttributes: ['updatedAt'] }),
    ]) {
      const report = checkUpgrade(
        released(),
        current((resources) => {
          props(resources.Table).GlobalSecondaryIndexes = [changed];
        }),
      );
      expect(report.failures).toEqual([
        expect.objectContaining({
          rule: 'gsi-changed-in-place',
          reason: expect.stringContaining('ByStatus'),
        }),
      ]);
    }
  });

  it('fails a local secondary index added to an existing table', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        props(resources.Table).LocalSecondaryIndexes = [
          {
            IndexName: 'ByTime',
            KeySchema: [...TABLE_KEY, { AttributeName: 'at', KeyType: 'RANGE' }],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ];
      }),
    );
    expect(verdicts(report.failures)).toEqual([['Table', 'lsi-changed']]);
  });

  it("fails a table's stream removed or given another view type, and allows a stream added", () => {
    for (const stream of [undefined, { StreamViewType: 'NEW_IMAGE' }]) {
      const report = checkUpgrade(
        released(),
        current((resources) => {
          props(resources.Table).StreamSpecification = stream;
        }),
      );
      expect(verdicts(report.failures)).toEqual([['Table', 'stream-replaced']]);
    }
    const unstreamed = current((resources) => {
      delete props(resources.Table).StreamSpecification;
    });
    expect(checkUpgrade(unstreamed, released()).failures).toEqual([]);
  });

  it('fails a queue whose FifoQueue changes (a replacement)', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        props(resources.Queue).FifoQueue = false;
      }),
    );
    expect(report.failures).toEqual([
      expect.objectContaining({
        logicalId: 'Queue',
        type: 'AWS::SQS::Queue',
        rule: 'replaced',
        reason: expect.stringContaining('FifoQueue'),
      }),
    ]);
  });

  it('fails a KMS key removed, and a change to its key spec, which CloudFormation refuses', () => {
    const removed = checkUpgrade(
      released(),
      current((resources) => {
        delete resources.Key;
        delete props(resources.Topic).KmsMasterKeyId;
      }),
    );
    expect(verdicts(removed.failures)).toEqual([['Key', 'orphaned']]);
    const respecified = checkUpgrade(
      released(),
      current((resources) => {
        props(resources.Key).KeySpec = 'RSA_2048';
      }),
    );
    expect(verdicts(respecified.failures)).toEqual([['Key', 'kms-key-immutable-changed']]);
  });

  it('fails a custom-named topic that would be replaced under the same name: a loss and a refusal', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        props(resources.Topic).FifoTopic = false;
      }),
    );
    expect(verdicts(report.failures)).toEqual([
      ['Topic', 'replaced'],
      ['Topic', 'custom-name-replaced'],
    ]);
    expect(report.failures[1]?.reason).toContain('"Requests.fifo"');
  });

  it('follows a replacement to what references it: a renamed bus replaces its archive', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        props(resources.Bus).Name = 'DeliveryBusV2';
      }),
    );
    expect(verdicts(report.failures)).toEqual([
      ['Archive', 'replaced'],
      ['Bus', 'replaced'],
    ]);
    expect(report.failures[0]?.reason).toContain('SourceArn');
  });

  it('reports other changes as information: a new queue, a changed policy', () => {
    const report = checkUpgrade(
      released(),
      current((resources) => {
        resources.Inbox = { Type: 'AWS::SQS::Queue', Properties: {} };
        (props(resources.Policy).PolicyDocument as { Statement: { Action: string }[] }).Statement[0] = {
          Action: 'sqs:ReceiveMessage',
        };
      }),
    );
    expect(report.failures).toEqual([]);
    expect(report.changes).toEqual([
      'Inbox (AWS::SQS::Queue) added',
      'Policy (AWS::IAM::Policy) updated: PolicyDocument',
    ]);
  });

  it('names a maybe-replacement of a stateful resource (a property whose replacement is conditional)', () => {
    // No stateful type here has such a property today; an EC2 instance's InstanceType is one.
    const instance = (type: string) => ({
      Resources: {
        Server: { Type: 'AWS::EC2::Instance', Properties: { InstanceType: type, ImageId: 'ami-1' } },
      },
    });
    const report = checkUpgrade(instance('t3.small'), instance('t3.large'), {
      statefulTypes: { 'AWS::EC2::Instance': 'its disks' },
    });
    expect(report.failures).toEqual([
      expect.objectContaining({ rule: 'may-be-replaced', reason: expect.stringContaining('InstanceType') }),
    ]);
    expect(checkUpgrade(instance('t3.small'), instance('t3.large')).changes).toEqual([
      'Server (AWS::EC2::Instance) may be replaced: InstanceType',
    ]);
  });

  describe('acknowledgments', () => {
    const removedTable = () =>
      current((resources) => {
        delete resources.Table;
      });

    it('turns an intended loss into a reported one, with its reason', () => {
      const report = checkUpgrade(released(), removedTable(), {
        acknowledgments: [{ logicalId: 'Table', rule: 'orphaned', reason: 'moved to the archive stack' }],
      });
      expect(report.failures).toEqual([]);
      expect(report.acknowledged).toEqual([
        expect.objectContaining({
          logicalId: 'Table',
          rule: 'orphaned',
          acknowledgment: 'moved to the archive stack',
        }),
      ]);
      expect(report.unusedAcknowledgments).toEqual([]);
    });

    it('returns the acknowledgments that match no loss (another rule, another resource)', () => {
      const stale = [
        { logicalId: 'Table', rule: 'replaced', reason: 'x' },
        { logicalId: 'Queue', rule: 'orphaned', reason: 'y' },
      ] as const;
      const report = checkUpgrade(released(), removedTable(), { acknowledgments: stale });
      expect(verdicts(report.failures)).toEqual([['Table', 'orphaned']]);
      expect(report.unusedAcknowledgments).toEqual(stale);
    });

    it('refuses to acknowledge a refusal, an unknown rule, or a loss without a reason', () => {
      const check = (acknowledgment: Record<string, string>) => () =>
        checkUpgrade(released(), released(), { acknowledgments: [acknowledgment as never] });
      expect(check({ logicalId: 'Table', rule: 'gsi-creates-deletes', reason: 'r' })).toThrow(
        'Acknowledgment of Table [gsi-creates-deletes]: CloudFormation refuses that update whatever is acknowledged',
      );
      expect(check({ logicalId: 'Table', rule: 'gone', reason: 'r' })).toThrow('[gone]: unknown rule');
      expect(check({ logicalId: 'Table', rule: 'deleted', reason: ' ' })).toThrow('give the reason');
    });
  });
});
