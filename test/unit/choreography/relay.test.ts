/** The outbox relay's pure rules: which entries of a stream record are new, and what they carry. */

import { fromAttributeValue } from '../../../lambdas/choreography/adapters/stream-image';
import { EventType, MessageAttribute, OutboxDestination } from '../../../lambdas/choreography/contracts';
import {
  fifoKeysOf,
  messageAttributesOf,
  newOutboxEntries,
} from '../../../lambdas/choreography/domain/relay';

const entry = (id: string) => ({
  id,
  destination: OutboxDestination.DeliveryQueue,
  message: { type: EventType.PackageReady, deliveryId: 'd1', eventId: id },
});

describe('outbox relay: new entries', () => {
  it('publishes every entry of an inserted item, in order', () => {
    expect(newOutboxEntries([entry('a'), entry('b')], undefined).map((e) => e.id)).toEqual(['a', 'b']);
  });

  it('publishes only the entries the OLD image did not hold', () => {
    expect(newOutboxEntries([entry('a'), entry('b'), entry('c')], [entry('a')]).map((e) => e.id)).toEqual([
      'b',
      'c',
    ]);
  });

  it('publishes nothing when the change appended nothing, or when old entries were dropped', () => {
    expect(newOutboxEntries([entry('a')], [entry('a')])).toEqual([]);
    expect(newOutboxEntries([entry('b')], [entry('a'), entry('b')])).toEqual([]);
    expect(newOutboxEntries(undefined, [entry('a')])).toEqual([]);
  });

  it('refuses an entry that is not an OutboxEntry, saying which', () => {
    expect(() => newOutboxEntries([{ id: 'x', destination: 'nowhere', message: {} }], [])).toThrow(
      /Outbox entry 0 is not an OutboxEntry/,
    );
  });
});

describe('outbox relay: attributes and FIFO keys', () => {
  it('carries type, schema version and correlation id', () => {
    expect(
      messageAttributesOf({
        type: EventType.DeliveryRequested,
        schemaVersion: 1,
        correlationId: 'c1',
        data: {},
      }),
    ).toEqual({
      [MessageAttribute.Type]: { dataType: 'String', value: EventType.DeliveryRequested },
      [MessageAttribute.SchemaVersion]: { dataType: 'Number', value: '1' },
      [MessageAttribute.CorrelationId]: { dataType: 'String', value: 'c1' },
    });
  });

  it('adds source and decision to remediation decisions (the SNS filter policies read them)', () => {
    const attributes = messageAttributesOf({
      type: EventType.RemediationDecided,
      schemaVersion: 1,
      correlationId: 'c1',
      data: { source: 'drone-scheduler', decision: 'RETRY' },
    });
    expect(attributes[MessageAttribute.Source]?.value).toBe('drone-scheduler');
    expect(attributes[MessageAttribute.Decision]?.value).toBe('RETRY');
  });

  it('groups by delivery and de-duplicates by event id', () => {
    expect(fifoKeysOf(entry('package:d1:2'))).toEqual({ groupId: 'd1', deduplicationId: 'package:d1:2' });
    expect(() => fifoKeysOf({ ...entry('x'), message: {} })).toThrow(/names no deliveryId/);
  });

  it('reads stream images of every type the change log holds', () => {
    expect(
      fromAttributeValue({
        M: {
          s: { S: 'x' },
          n: { N: '1.5' },
          b: { BOOL: true },
          z: { NULL: true },
          l: { L: [{ N: '2' }, { M: { k: { S: 'v' } } }] },
        },
      }),
    ).toEqual({ s: 'x', n: 1.5, b: true, z: null, l: [2, { k: 'v' }] });
  });
});
