/**
 * The settings every stateful resource of a stack reads, given once on the stack instead of passed
 * through every construct's props: whether data survives the stack's deletion (tables, queues,
 * keys, log groups, buckets, user pools), how long log groups keep their logs, and whether the
 * functions send trace data (X-Ray). A stack applies them first (`DataSettings.forStack(this,
 * config)`); a construct reads them with `DataSettings.of(this)`, as `Stack.of(this)` finds its
 * stack. It adds nothing to the template.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';

export interface DataSettingsProps {
  /** Whether stateful resources are kept when the stack is deleted (the profile's retainData). */
  readonly retainData: boolean;
  /**
   * Days every log group keeps its logs; a CloudWatch Logs retention period (RetentionDays). The
   * profile's logRetentionDays.
   */
  readonly logRetentionDays: number;
  /**
   * Whether the stack's functions send X-Ray traces (the profile's tracing).
   * @default true
   */
  readonly tracing?: boolean;
}

export class DataSettings extends Construct {
  /** The settings' construct id under the stack. */
  static readonly ID = 'DataSettings';

  /** Gives the stack its settings; once per stack. */
  static forStack(stack: Stack, props: DataSettingsProps): DataSettings {
    return new DataSettings(stack, props);
  }

  /** The settings of the stack `scope` is in; throws naming the stack when it has none. */
  static of(scope: IConstruct): DataSettings {
    const stack = Stack.of(scope);
    const found = stack.node.tryFindChild(DataSettings.ID);
    if (!(found instanceof DataSettings)) {
      throw new Error(
        `${scope.node.path}: stack ${stack.node.path} has no DataSettings; call DataSettings.forStack(stack, { retainData, logRetentionDays }) before adding constructs to it`,
      );
    }
    return found;
  }

  readonly retainData: boolean;
  readonly logRetentionDays: number;
  readonly tracing: boolean;

  private constructor(stack: Stack, props: DataSettingsProps) {
    super(stack, DataSettings.ID);
    if (!(Object.values(logs.RetentionDays) as unknown[]).includes(props.logRetentionDays)) {
      throw new Error(
        `DataSettings of ${stack.node.path}: logRetentionDays ${props.logRetentionDays} is not a CloudWatch Logs retention period`,
      );
    }
    this.retainData = props.retainData;
    this.logRetentionDays = props.logRetentionDays;
    this.tracing = props.tracing ?? true;
  }

  /** RETAIN where data is kept, DESTROY where it goes with the stack. */
  get removalPolicy(): RemovalPolicy {
    return this.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
  }

  /** The log retention as the CDK's enum (the value was checked to be one of it). */
  get logRetention(): logs.RetentionDays {
    return this.logRetentionDays as logs.RetentionDays;
  }
}
