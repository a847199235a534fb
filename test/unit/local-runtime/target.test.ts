import { type LocalTarget, outputsOfStack } from '../../../lib/local-runtime';

describe("the local runtime's target, one stack at a time", () => {
  const target = {
    kind: 'local',
    outputs: { ApiUrl: 'merged', Shared: 'later' },
    apiKey: 'first',
    stackOutputs: { A: { ApiUrl: 'a' }, B: { ApiUrl: 'b', Shared: 'later' } },
    apis: { A: { url: 'a', apiKeys: ['key-a'] }, B: { url: 'b', apiKeys: ['key-b'] } },
  } as unknown as LocalTarget;

  it("reads the stack's own outputs and its API's key", () => {
    expect(outputsOfStack(target, 'A')).toEqual({ outputs: { ApiUrl: 'a' }, apiKey: 'key-a' });
  });

  it('falls back to the merged outputs and the first key for a target that lists no stacks', () => {
    const { stackOutputs: _outputs, apis: _apis, ...older } = target;
    expect(outputsOfStack(older as LocalTarget, 'A')).toEqual({
      outputs: { ApiUrl: 'merged', Shared: 'later' },
      apiKey: 'first',
    });
  });
});
