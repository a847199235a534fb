/**
 * The table rules' bad input: index lists the check cannot read are named, not guessed at.
 */
import { indexChanges } from '../../../lib/release/table-updates';

describe('indexChanges', () => {
  it('names the table when its indexes are not a literal list, or an index has no literal name', () => {
    expect(() =>
      indexChanges({ GlobalSecondaryIndexes: { 'Fn::If': ['c', [], []] } }, {}, 'StateTable'),
    ).toThrow('StateTable: GlobalSecondaryIndexes is not a list');
    expect(() =>
      indexChanges({}, { GlobalSecondaryIndexes: [{ IndexName: { Ref: 'P' } }] }, 'StateTable'),
    ).toThrow('StateTable: a global secondary index has no literal IndexName');
  });

  it('tells created, deleted and changed indexes apart by name', () => {
    const gsi = (name: string, key = name) => ({
      IndexName: name,
      KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
      Projection: { ProjectionType: 'ALL' },
    });
    expect(
      indexChanges(
        { GlobalSecondaryIndexes: [gsi('A'), gsi('B')] },
        { GlobalSecondaryIndexes: [gsi('B', 'b2'), gsi('C')] },
        'T',
      ),
    ).toEqual({ created: ['C'], deleted: ['A'], changedInPlace: ['B'] });
  });
});
