import { isConditionalCheckFailed } from '../../../lambdas/shared/dynamodb-errors';
import { describeError, hasErrorName } from '../../../lambdas/shared/errors';

const named = (name: string) => Object.assign(new Error('message'), { name });

describe('hasErrorName', () => {
  it('matches any of the names given, by name rather than by class', () => {
    expect(hasErrorName(named('TaskTimedOut'), 'InvalidToken', 'TaskTimedOut')).toBe(true);
    // An error thrown by another copy of the SDK is a plain object as far as this copy can tell.
    expect(hasErrorName({ name: 'ExecutionAlreadyExists' }, 'ExecutionAlreadyExists')).toBe(true);
  });

  it.each<[string, unknown]>([
    ['another name', named('ThrottlingException')],
    ['a bare string', 'TaskTimedOut'],
    ['null', null],
    ['undefined', undefined],
    ['a non-string name', { name: 42 }],
  ])('is false for %s', (_case, error) => {
    expect(hasErrorName(error, 'TaskTimedOut', '42')).toBe(false);
  });

  it('backs isConditionalCheckFailed', () => {
    expect(isConditionalCheckFailed(named('ConditionalCheckFailedException'))).toBe(true);
    expect(isConditionalCheckFailed(named('TransactionCanceledException'))).toBe(false);
  });
});

describe('describeError', () => {
  it('names the error class and message, or stringifies anything else', () => {
    expect(describeError(named('ValidationException'))).toBe('ValidationException: message');
    expect(describeError('plain')).toBe('plain');
  });
});
