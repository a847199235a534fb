/**
 * The requesters' registry a delivery handler reads at load: a registry that cannot tell requesters
 * apart, or is not one, stops the handler naming the variable and what is wrong.
 */
import { readRequesterRegistry } from '../../../lambdas/choreography/adapters/requester-registry';
import { ChoreographyEnvKey } from '../../../lambdas/choreography/contracts';

const read = (value: string) => readRequesterRegistry({ [ChoreographyEnvKey.RequesterRegistry]: value });

describe('readRequesterRegistry', () => {
  it('reads the requesters and their key ids', () => {
    expect(read('[{"requesterId":"pharmacy","apiKeyId":"k1"}]')).toEqual([
      { requesterId: 'pharmacy', apiKeyId: 'k1' },
    ]);
  });

  it('refuses text that is not JSON, naming the variable', () => {
    expect(() => read('[{')).toThrow(`${ChoreographyEnvKey.RequesterRegistry} is not valid`);
  });

  it('refuses a key id given to two requesters, and an empty registry', () => {
    expect(() =>
      read('[{"requesterId":"pharmacy","apiKeyId":"k1"},{"requesterId":"bakery","apiKeyId":"k1"}]'),
    ).toThrow(/apiKeyId 'k1' appears twice/);
    expect(() => read('[]')).toThrow(`${ChoreographyEnvKey.RequesterRegistry} is not valid`);
  });
});
