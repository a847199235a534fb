/** Who is asking (the decision behind 403) and the requester registry's contract; who owns a delivery: test/unit/shared/owned-by.test.ts. */
import { RequesterRegistrySchema } from '../../../lambdas/choreography/contracts';
import { holderOfApiKey } from '../../../lambdas/shared/holder-of-api-key';

const REGISTRY = [
  { requesterId: 'pharmacy', apiKeyId: 'key-p' },
  { requesterId: 'bakery', apiKeyId: 'key-b' },
];

describe('holderOfApiKey (the requesters)', () => {
  it('finds the requester of a registered key', () => {
    expect(holderOfApiKey(REGISTRY, 'key-b')?.requesterId).toBe('bakery');
  });
  it.each([undefined, null, '', 'key-unknown'])('knows no requester for key id %p', (apiKeyId) => {
    expect(holderOfApiKey(REGISTRY, apiKeyId)).toBeUndefined();
  });
});

describe('RequesterRegistrySchema', () => {
  it('accepts the registry the stack writes', () => {
    expect(RequesterRegistrySchema.parse(REGISTRY)).toEqual(REGISTRY);
  });
  it.each([
    ['empty', []],
    ['a repeated requester', [REGISTRY[0], { ...REGISTRY[1], requesterId: 'pharmacy' }]],
    ['a repeated key', [REGISTRY[0], { ...REGISTRY[1], apiKeyId: 'key-p' }]],
    ['an unknown field', [{ ...REGISTRY[0], extra: 1 }]],
  ])('refuses %s', (_case, registry) => {
    expect(RequesterRegistrySchema.safeParse(registry).success).toBe(false);
  });
});
