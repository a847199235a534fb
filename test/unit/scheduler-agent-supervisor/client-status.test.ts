import type { ClientStatusMessage } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  type ClientRegistry,
  ClientStatus,
  ClientStatusMessageSchema,
  clientMessageKey,
  ProcessState,
  parseClientRegistry,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  type ClientNotice,
  clientStatusMessage,
  decideClientNotice,
  notifyClient,
  type StatusChange,
} from '../../../lambdas/scheduler-agent-supervisor/domain/client-status';
import { clientById } from '../../../lambdas/scheduler-agent-supervisor/domain/clients';
import { holderOfApiKey } from '../../../lambdas/shared/holder-of-api-key';

const AT = '2030-01-02T03:04:05.000Z';

const image = (processState: string, extra: { clientId?: string; updatedAt?: string } = {}) => ({
  orderId: 'order-1',
  processState,
  updatedAt: extra.updatedAt ?? AT,
  ...('clientId' in extra
    ? extra.clientId === undefined
      ? {}
      : { clientId: extra.clientId }
    : { clientId: 'web-shop' }),
});

const modify = (from: ProcessState, to: ProcessState): StatusChange => ({
  eventName: 'MODIFY',
  oldImage: { processState: from },
  newImage: image(to),
});

const statusOf = (notice: ClientNotice) => (notice.kind === 'tell' ? notice.status : 'nothing');

describe('decideClientNotice: which stream record tells the client what', () => {
  it('tells Received on creation (INSERT), with the record time', () => {
    expect(decideClientNotice({ eventName: 'INSERT', newImage: image(ProcessState.Pending) })).toEqual({
      kind: 'tell',
      clientId: 'web-shop',
      orderId: 'order-1',
      status: ClientStatus.Received,
      processState: ProcessState.Pending,
      at: AT,
    });
  });

  it.each([
    [ProcessState.Processing, ProcessState.Processed, ClientStatus.Completed],
    [ProcessState.Processing, ProcessState.Error, ClientStatus.Failed],
    [ProcessState.CompensationInProgress, ProcessState.CompensationFailed, ClientStatus.Failed],
    [ProcessState.CompensationInProgress, ProcessState.Compensated, ClientStatus.Compensated],
    [ProcessState.Pending, ProcessState.Processing, 'nothing'],
    [ProcessState.Processing, ProcessState.Pending, 'nothing'],
    [ProcessState.Processing, ProcessState.CompensationInProgress, 'nothing'],
    [ProcessState.Error, ProcessState.Pending, 'nothing'],
    [ProcessState.Error, ProcessState.CompensationInProgress, 'nothing'],
    [ProcessState.Processed, ProcessState.CompensationInProgress, 'nothing'],
    [ProcessState.CompensationFailed, ProcessState.CompensationInProgress, 'nothing'],
  ])('%s -> %s tells %s', (from, to, expected) => {
    expect(statusOf(decideClientNotice(modify(from, to)))).toBe(expected);
  });

  it.each(Object.values(ProcessState))(
    'a change within %s (steps, lock, counters) tells nothing',
    (state) => {
      expect(decideClientNotice(modify(state, state))).toEqual({ kind: 'nothing' });
    },
  );

  it('a retried attempt (Processing -> Pending -> Processing) tells nothing at any step', () => {
    const attempts = [
      modify(ProcessState.Pending, ProcessState.Processing),
      modify(ProcessState.Processing, ProcessState.Pending),
      modify(ProcessState.Pending, ProcessState.Processing),
    ];
    expect(attempts.map((change) => decideClientNotice(change))).toEqual([
      { kind: 'nothing' },
      { kind: 'nothing' },
      { kind: 'nothing' },
    ]);
  });

  it('tells nothing on removal, without a new image, or for a state it does not know', () => {
    expect(decideClientNotice({ eventName: 'REMOVE', oldImage: { processState: 'Processed' } })).toEqual({
      kind: 'nothing',
    });
    expect(decideClientNotice({ eventName: 'MODIFY', oldImage: { processState: 'Processing' } })).toEqual({
      kind: 'nothing',
    });
    expect(
      decideClientNotice({
        eventName: 'MODIFY',
        oldImage: { processState: 'Processing' },
        newImage: image('Archived'),
      }),
    ).toEqual({ kind: 'nothing' });
  });

  it('keeps a record without ClientId as a notice without a client (the caller reports it)', () => {
    const notice = decideClientNotice({
      eventName: 'INSERT',
      newImage: image(ProcessState.Pending, { clientId: undefined }),
    });
    expect(notice).toMatchObject({ kind: 'tell', clientId: undefined, status: ClientStatus.Received });
  });
});

describe('clientStatusMessage and its key', () => {
  it('is a valid ClientStatusMessage keyed <orderId>:<status>:<at>', () => {
    const notice = decideClientNotice(modify(ProcessState.Processing, ProcessState.Processed));
    if (notice.kind !== 'tell') throw new Error('expected a notice');
    const message = clientStatusMessage(notice, 'web-shop');
    expect(message).toEqual({
      schemaVersion: 1,
      orderId: 'order-1',
      clientId: 'web-shop',
      status: 'Completed',
      processState: 'Processed',
      at: AT,
      messageKey: `order-1:Completed:${AT}`,
    });
    expect(ClientStatusMessageSchema.parse(message)).toEqual(message);
  });

  it('is the same for a redelivered record and differs for each transition', () => {
    const received = decideClientNotice({ eventName: 'INSERT', newImage: image(ProcessState.Pending) });
    const again = decideClientNotice({ eventName: 'INSERT', newImage: image(ProcessState.Pending) });
    const failed = decideClientNotice(modify(ProcessState.Processing, ProcessState.Error));
    const laterCompleted = decideClientNotice({
      eventName: 'MODIFY',
      oldImage: { processState: ProcessState.Processing },
      newImage: image(ProcessState.Processed, { updatedAt: '2030-01-02T04:00:00.000Z' }),
    });
    const key = (notice: ClientNotice) =>
      notice.kind === 'tell' ? clientStatusMessage(notice, 'web-shop').messageKey : '';
    expect(key(received)).toBe(key(again));
    expect(new Set([key(received), key(failed), key(laterCompleted)]).size).toBe(3);
    expect(clientMessageKey('o', ClientStatus.Failed, AT)).toBe(`o:Failed:${AT}`);
  });
});

const REGISTRY: ClientRegistry = [
  { clientId: 'web-shop', apiKeyId: 'k1', replyQueueUrl: 'https://sqs/web-shop.fifo' },
  { clientId: 'call-center', apiKeyId: 'k2', replyQueueUrl: 'https://sqs/call-center.fifo' },
];

describe('notifyClient', () => {
  const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const recorder = () => {
    const sent: Array<{ queueUrl: string; message: ClientStatusMessage }> = [];
    return {
      sent,
      replies: {
        send: async (queueUrl: string, message: ClientStatusMessage) => {
          sent.push({ queueUrl, message });
        },
      },
    };
  };

  it("sends to the record's client's queue only", async () => {
    const { sent, replies } = recorder();
    const change: StatusChange = {
      eventName: 'INSERT',
      newImage: image(ProcessState.Pending, { clientId: 'call-center' }),
    };
    expect(await notifyClient(change, { registry: REGISTRY, replies, log: silent })).toEqual({
      kind: 'sent',
      clientId: 'call-center',
      status: 'Received',
    });
    expect(sent.map((entry) => [entry.queueUrl, entry.message.clientId])).toEqual([
      ['https://sqs/call-center.fifo', 'call-center'],
    ]);
  });

  it.each([
    ['no ClientId', undefined],
    ['a client no longer configured', 'gone-client'],
  ])('reports a record with %s as unroutable and sends nothing', async (_case, clientId) => {
    const { sent, replies } = recorder();
    const change: StatusChange = { eventName: 'INSERT', newImage: image(ProcessState.Pending, { clientId }) };
    expect(await notifyClient(change, { registry: REGISTRY, replies, log: silent })).toEqual({
      kind: 'unroutable',
      orderId: 'order-1',
      clientId,
    });
    expect(sent).toEqual([]);
  });

  it('sends nothing when there is nothing to tell, and lets a send failure through (the stream retries)', async () => {
    const { sent, replies } = recorder();
    expect(
      await notifyClient(modify(ProcessState.Pending, ProcessState.Processing), {
        registry: REGISTRY,
        replies,
        log: silent,
      }),
    ).toEqual({ kind: 'nothing' });
    expect(sent).toEqual([]);
    const failing = { send: async () => Promise.reject(new Error('queue down')) };
    await expect(
      notifyClient(modify(ProcessState.Processing, ProcessState.Processed), {
        registry: REGISTRY,
        replies: failing,
        log: silent,
      }),
    ).rejects.toThrow('queue down');
  });
});

describe('clients', () => {
  it('finds the client of an API key id, and none for a missing or unknown one', () => {
    expect(holderOfApiKey(REGISTRY, 'k2')?.clientId).toBe('call-center');
    expect(holderOfApiKey(REGISTRY, 'k3')).toBeUndefined();
    expect(holderOfApiKey(REGISTRY, null)).toBeUndefined();
    expect(holderOfApiKey(REGISTRY, '')).toBeUndefined();
    expect(clientById(REGISTRY, 'web-shop')?.apiKeyId).toBe('k1');
    expect(clientById(REGISTRY, undefined)).toBeUndefined();
  });

  it('parses the registry the stack writes', () => {
    expect(parseClientRegistry(JSON.stringify(REGISTRY))).toEqual(REGISTRY);
  });

  it.each([
    [
      'an empty list',
      '[]',
      'Client registry is invalid: (list): Too small: expected array to have >=1 items',
    ],
    ['text that is not JSON', '{', /^Client registry is not JSON: /],
    [
      'an object, not a list',
      '{"clientId":"web-shop"}',
      /^Client registry is invalid: \(list\): .*expected array/,
    ],
    [
      'a key id twice',
      JSON.stringify([REGISTRY[0], { ...REGISTRY[1], apiKeyId: 'k1' }]),
      "Client registry is invalid: (list): apiKeyId 'k1' appears twice",
    ],
    [
      'a bad name',
      JSON.stringify([{ ...REGISTRY[0], clientId: 'Web Shop' }]),
      /^Client registry is invalid: \[0\]\.clientId: .*pattern/,
    ],
    [
      'an unknown field',
      JSON.stringify([{ ...REGISTRY[0], extra: 1 }]),
      'Client registry is invalid: [0].extra: is not an allowed field',
    ],
    [
      'missing fields, each named',
      JSON.stringify([{ clientId: 'web-shop' }]),
      'Client registry is invalid: [0].apiKeyId: is required; [0].replyQueueUrl: is required',
    ],
    [
      'a key twice in one entry',
      '[{"clientId":"web-shop","clientId":"call-center","apiKeyId":"k1","replyQueueUrl":"q1"}]',
      /^Client registry is invalid: \[0\]\.clientId: is a duplicate key/,
    ],
  ])('refuses %s, naming what is wrong', (_case, json, message) => {
    expect(() => parseClientRegistry(json)).toThrow(message);
  });
});
