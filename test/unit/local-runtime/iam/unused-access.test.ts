/** The least-privilege report (iam/unused-access.ts): statements and actions granted but never used. */
import { unusedAccessReport } from '../../../../lib/local-runtime/iam/unused-access';
import type { IamUsageRecord } from '../../../../lib/local-runtime/iam/usage-record';

const ROLE = 'arn:aws:iam::000000000000:role/agent';

function record(overrides: Partial<IamUsageRecord>): IamUsageRecord {
  return {
    mode: 'enforce',
    startedAt: '2026-12-02T00:00:00Z',
    grants: {
      [ROLE]: [
        {
          policy: 'agent/Default',
          sid: '#0',
          actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:PurgeQueue'],
          notAction: false,
          resources: ['arn:aws:sqs:us-east-1:000000000000:q'],
          notResource: false,
          conditional: false,
        },
        {
          policy: 'agent/Default',
          sid: '#1',
          actions: ['xray:*'],
          notAction: false,
          resources: ['*'],
          notResource: false,
          conditional: false,
        },
        {
          policy: 'agent/Default',
          sid: 'Never',
          actions: ['dynamodb:Scan'],
          notAction: false,
          resources: ['*'],
          notResource: false,
          conditional: true,
        },
      ],
    },
    usage: { actions: {}, statements: {}, denials: {} },
    ...overrides,
  };
}

describe('unused access report', () => {
  it('names the statements that never allowed a request and the explicit actions never called, across runs', () => {
    const first = record({
      usage: {
        actions: { [ROLE]: { 'sqs:receivemessage': ['arn:aws:sqs:us-east-1:000000000000:q'] } },
        statements: { 'agent/Default##0': 3 },
        denials: { 'User: x is not authorized': 1 },
      },
    });
    const second = record({
      usage: {
        actions: {
          [ROLE]: {
            'sqs:deletemessage': ['arn:aws:sqs:us-east-1:000000000000:q'],
            'xray:puttracesegments': ['*'],
          },
        },
        statements: { 'agent/Default##0': 2, 'agent/Default##1': 1 },
        denials: { 'User: x is not authorized': 2 },
      },
    });
    const report = unusedAccessReport([first, second]);
    expect(report.runs).toBe(2);
    expect(report.denials).toEqual({ 'User: x is not authorized': 3 });
    const [agent] = report.principals;
    expect(agent?.usedActions).toEqual(['sqs:deletemessage', 'sqs:receivemessage', 'xray:puttracesegments']);
    const [queue, tracing, never] = agent?.statements ?? [];
    expect(queue).toMatchObject({ allowedRequests: 5, unusedActions: ['sqs:PurgeQueue'], wildcards: [] });
    expect(tracing).toMatchObject({
      allowedRequests: 1,
      unusedActions: [],
      wildcards: [{ pattern: 'xray:*', used: ['xray:puttracesegments'] }],
    });
    expect(never).toMatchObject({ allowedRequests: 0, unusedActions: ['dynamodb:Scan'], conditional: true });
  });
});
