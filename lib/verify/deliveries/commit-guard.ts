/**
 * The commit's guards as both deliveries models write them (booking-model.ts, delivery-model.ts):
 * the processed-message marker, which the code only ever writes when absent, and a versioned item
 * (ASSIGNMENT#, DRONE#, DELIVERY#), whose write the code conditions on what it read: absence when it
 * read none (version 0 in the model), else the version read. The code's conditions are read through
 * conditionGuard, handed a sentinel version so that the model can tell which value they compare with.
 * One home, so the models cannot come to read the same conditions differently.
 */
import { TABLE_PARTITION_KEY } from '../../../lambdas/choreography/contracts';
import { VERSION_ATTRIBUTE } from '../../../lambdas/choreography/kit';
import { conditionGuard, type ModelItem, type WriteCondition } from './condition-guard';

/** The version the model passes to the code for "the version read": any value no write starts at. */
const READ_SENTINEL = 7;

/** The attribute names the code's conditions use: the key and the version. */
const ATTRIBUTES = { keyAttribute: TABLE_PARTITION_KEY, versionAttribute: VERSION_ATTRIBUTE } as const;

/** An item whose version is the Promela expression `version` (0: the item is absent). */
const itemAt = (version: string): ModelItem => ({
  absent: `${version} == 0`,
  versionIs: (value) => `${version} == ${value}`,
  ...ATTRIBUTES,
});

export const commitGuard = {
  /** The marker's guard: `absent` is the Promela expression for "no marker yet"; it has no version. */
  marker(condition: WriteCondition | undefined, absent: string): string {
    return conditionGuard(condition, { absent, versionIs: () => '0', ...ATTRIBUTES });
  },

  /**
   * A versioned item's guard: the condition the code puts on its write when it read none and when
   * it read `sentinel`, chosen by the version the consumer read (`read`, a Promela expression).
   * @param conditionAt the code's condition for a write after reading the item (undefined: read
   * absent), in the shape of the code's itemConditionOf
   * @param version the item's version in the model, as a Promela expression
   */
  item(
    conditionAt: (read: { readonly version: number } | undefined) => WriteCondition | undefined,
    { version, read }: { readonly version: string; readonly read: string },
    sentinel: number = READ_SENTINEL,
  ): string {
    const item = itemAt(version);
    const absentRead = conditionGuard(conditionAt(undefined), item);
    const versionRead = conditionGuard(conditionAt({ version: sentinel }), item, new Map([[sentinel, read]]));
    return `(${read} == 0 -> ${absentRead} : ${versionRead})`;
  },
};
