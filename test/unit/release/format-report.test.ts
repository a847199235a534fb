/**
 * formatReport: nothing for an unchanged stack; otherwise a count line, failures first, then
 * acknowledged losses with their reasons, then the other changes.
 */
import { formatReport } from '../../../lib/release';

describe('formatReport', () => {
  it('is empty when nothing differs', () => {
    expect(
      formatReport('demo/S', { failures: [], acknowledged: [], unusedAcknowledgments: [], changes: [] }),
    ).toBe('');
  });

  it('lists failures, acknowledged losses and changes under a count line', () => {
    const finding = {
      logicalId: 'T',
      type: 'AWS::DynamoDB::Table',
      rule: 'deleted',
      reason: 'is removed',
    } as const;
    expect(
      formatReport('demo/S', {
        failures: [finding],
        acknowledged: [{ ...finding, logicalId: 'U', acknowledgment: 'moved' }],
        unusedAcknowledgments: [],
        changes: ['Q (AWS::SQS::Queue) added'],
      }).split('\n'),
    ).toEqual([
      'demo/S: 1 failure(s), 1 acknowledged loss(es), 1 other change(s)',
      '  FAIL T (AWS::DynamoDB::Table) [deleted]: is removed',
      '  acknowledged U (AWS::DynamoDB::Table) [deleted]: is removed (because: moved)',
      '  Q (AWS::SQS::Queue) added',
    ]);
  });
});
