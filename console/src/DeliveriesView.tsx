import { type FormEvent, useState } from 'react';
import { DELIVERY_STATUSES } from '../../lambdas/choreography/contracts/statuses';
import type { DeliveryTrailEntry } from '../contract/console-api';
import { useConsoleApi } from './api';
import { DataTable, ErrorNotice, FilterSelect, Freshness, formatTime, Section, StateBadge } from './common';
import { DeliverySwimlane } from './DeliverySwimlane';
import { href } from './route';
import { usePolling } from './use-polling';

export function DeliveriesView({ status }: { readonly status?: string | undefined }) {
  const api = useConsoleApi();
  const list = usePolling(() => api.deliveries(status), status ?? '');
  const [deliveryId, setDeliveryId] = useState('');
  const open = (event: FormEvent) => {
    event.preventDefault();
    if (deliveryId.trim()) window.location.hash = href.delivery(deliveryId.trim());
  };
  return (
    <>
      <h2 className="view-title">Deliveries</h2>
      <search>
        <form onSubmit={open} className="row">
          <label htmlFor="delivery-search">Delivery id</label>
          <input
            id="delivery-search"
            value={deliveryId}
            onChange={(event) => setDeliveryId(event.target.value)}
            required
          />
          <button type="submit">Open delivery</button>
        </form>
      </search>
      <div className="row">
        <FilterSelect
          label="Status"
          value={status}
          choices={DELIVERY_STATUSES}
          everyChoice="Every status"
          onChange={(chosen) => {
            window.location.hash = href.deliveries(chosen);
          }}
        />
      </div>
      <Freshness loadedAt={list.loadedAt} />
      <ErrorNotice error={list.error} />
      <DataTable
        caption="Deliveries, newest first"
        columns={['Delivery', 'Status', 'Correlation id', 'Accepted', 'Updated']}
      >
        {(list.data?.items ?? []).map((row) => (
          <tr key={row.deliveryId}>
            <th scope="row">
              <a href={href.delivery(row.deliveryId)}>{row.deliveryId}</a>
            </th>
            <td>
              <StateBadge state={row.status} />
            </td>
            <td className="mono">{row.correlationId ?? '—'}</td>
            <td>{formatTime(row.acceptedAt)}</td>
            <td>{formatTime(row.updatedAt)}</td>
          </tr>
        ))}
      </DataTable>
      {list.data && list.data.items.length === 0 && <p>No deliveries.</p>}
    </>
  );
}

/** What tells one trail entry from another (a list key). */
const trailKey = (entry: DeliveryTrailEntry) =>
  [entry.at, entry.service, entry.kind, entry.what, entry.sequence, entry.detail].join('|');

export function DeliveryView({ deliveryId }: { readonly deliveryId: string }) {
  const api = useConsoleApi();
  const detail = usePolling(() => api.delivery(deliveryId), deliveryId);
  const delivery = detail.data;
  const correlationId = delivery?.status?.correlationId;
  const deadLetters = (delivery?.trail ?? []).filter((entry) => entry.kind === 'dead-letter');
  return (
    <>
      <p>
        <a href={href.deliveries()}>← Deliveries</a>
      </p>
      <h2 className="view-title">
        Delivery <span className="mono">{deliveryId}</span>{' '}
        {delivery?.status && <StateBadge state={delivery.status.status} />}
      </h2>
      <Freshness loadedAt={detail.loadedAt} />
      <ErrorNotice error={detail.error} />
      <ErrorNotice error={delivery?.statusError} />
      {delivery && (
        <>
          {delivery.status && (
            <dl className="facts">
              <dt>Status</dt>
              <dd data-testid="delivery-status">{delivery.status.status}</dd>
              <dt>Correlation id</dt>
              <dd className="mono">{delivery.status.correlationId}</dd>
              <dt>Accepted</dt>
              <dd>{formatTime(delivery.status.acceptedAt)}</dd>
              <dt>Updated</dt>
              <dd>{formatTime(delivery.status.updatedAt)}</dd>
            </dl>
          )}
          <Section title="Trail across services">
            <DeliverySwimlane delivery={delivery} />
            <DataTable columns={['Time', 'Service', 'Kind', 'What', 'Seq', 'Correlation id', 'Detail']}>
              {delivery.trail.map((entry) => (
                <tr key={trailKey(entry)} className={`kind-${entry.kind}`}>
                  <td>
                    <time dateTime={entry.at}>{formatTime(entry.at)}</time>
                  </td>
                  <td>{entry.service}</td>
                  <td>{entry.kind}</td>
                  <th scope="row">{entry.what}</th>
                  <td>{entry.sequence ?? ''}</td>
                  <td className="mono">
                    {entry.correlationId ?? '—'}
                    {entry.correlationId && correlationId && entry.correlationId !== correlationId
                      ? ' (differs)'
                      : ''}
                  </td>
                  <td>{entry.detail}</td>
                </tr>
              ))}
            </DataTable>
          </Section>
          <Section title="Dead letters and remediation">
            {deadLetters.length === 0 ? (
              <p>No dead-lettered messages.</p>
            ) : (
              <ul>
                {deadLetters.map((entry) => (
                  <li key={trailKey(entry)}>
                    {formatTime(entry.at)} <strong>{entry.what}</strong> {entry.detail}
                  </li>
                ))}
              </ul>
            )}
          </Section>
        </>
      )}
    </>
  );
}
