/**
 * The dead-letter queues remediation reads, from DEAD_LETTER_QUEUE_URLS ({service: queueUrl}, parsed
 * once at cold start). One mapping serves both needs of a record: which service's queue held it
 * (the record's eventSourceARN names the queue; its last segment is the queue name, which is also
 * the last path segment of its URL) and the URL ChangeMessageVisibility needs to defer it. A queue
 * name cannot be turned into its URL without an endpoint and an account layout, which differ between
 * AWS, LocalStack and the local runtime; the stack already knows every URL.
 */
import * as z from 'zod';
import { requireEnv } from '../../shared/env';
import { jsonParser } from '../../shared/parse';
import { ChoreographyEnvKey, SERVICE_NAMES, type ServiceName } from '../contracts';

const DeadLetterQueueUrlsSchema = z.partialRecord(
  z.enum(SERVICE_NAMES as [ServiceName, ...ServiceName[]]),
  z.url(),
);

export interface DeadLetterQueue {
  readonly source: ServiceName;
  readonly queueUrl: string;
}

export class DeadLetterQueues {
  private readonly byName: ReadonlyMap<string, DeadLetterQueue>;

  constructor(urls: Readonly<Partial<Record<ServiceName, string>>>) {
    const byName = new Map<string, DeadLetterQueue>();
    for (const [source, queueUrl] of Object.entries(urls) as [ServiceName, string][]) {
      byName.set(lastSegment(new URL(queueUrl).pathname, '/'), { source, queueUrl });
    }
    this.byName = byName;
  }

  /** The queue an SQS record came from, or undefined when it is none of remediation's. */
  of(eventSourceArn: string): DeadLetterQueue | undefined {
    return this.byName.get(lastSegment(eventSourceArn, ':'));
  }
}

function lastSegment(text: string, separator: string): string {
  return text.split(separator).filter(Boolean).at(-1) ?? '';
}

/** DEAD_LETTER_QUEUE_URLS, validated: a remediation that cannot tell its queues apart must fail at load. */
export function readDeadLetterQueues(env: NodeJS.ProcessEnv = process.env): DeadLetterQueues {
  const parsed = jsonParser(DeadLetterQueueUrlsSchema)(
    requireEnv(ChoreographyEnvKey.DeadLetterQueueUrls, env),
  );
  if (!parsed.ok) {
    throw new Error(`${ChoreographyEnvKey.DeadLetterQueueUrls} is not valid: ${parsed.summary}`);
  }
  return new DeadLetterQueues(parsed.value);
}
