/** Who is asking and who owns a delivery: the decisions behind 403, 404-as-unknown and 409-naming-nothing. */
import { RequesterRegistrySchema } from '../../../lambdas/choreography/contracts';
import { ownsDelivery } from '../../../lambdas/choreography/domain/requesters';
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

describe('ownsDelivery', () => {
  it('is true for the submitter only', () => {
    expect(ownsDelivery({ requesterId: 'pharmacy' }, 'pharmacy')).toBe(true);
    expect(ownsDelivery({ requesterId: 'pharmacy' }, 'bakery')).toBe(false);
  });
  it('gives a delivery from before requesters to nobody', () => {
    expect(ownsDelivery({}, 'pharmacy')).toBe(false);
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
