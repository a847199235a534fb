import { type FormEvent, useState } from 'react';
import { ProcessState } from '../../lambdas/scheduler-agent-supervisor/contracts/states';
import { useConsoleApi } from './api';
import { DataTable, ErrorNotice, FilterSelect, Freshness, formatTime, StateBadge } from './common';
import { href } from './route';
import { usePolling } from './use-polling';

const PAGE_SIZE = 20;
const STATES = Object.values(ProcessState);

export function OrdersView({ state: chosen }: { readonly state?: string | undefined }) {
  const state = chosen && (STATES as readonly string[]).includes(chosen) ? chosen : ProcessState.Processing;
  // Cursors of the pages before this one: the API pages forward only, so Back pops one.
  const [cursors, setCursors] = useState<readonly (string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [listFor, setListFor] = useState(state);
  if (listFor !== state) {
    setListFor(state);
    setCursors([undefined]);
  }
  const api = useConsoleApi();
  const counts = usePolling(() => api.counts(), 'counts');
  const list = usePolling(
    () => api.orders({ state, limit: PAGE_SIZE, ...(cursor && { cursor }) }),
    `${state}|${cursor ?? ''}`,
  );
  return (
    <>
      <h2 className="view-title">Orders</h2>
      <OrderSearch />
      <section aria-labelledby="counts-title">
        <h3 id="counts-title">Orders by state</h3>
        <ErrorNotice error={counts.error} />
        <ul className="counts">
          {STATES.map((name) => {
            const count = counts.data?.find((entry) => entry.state === name);
            return (
              <li key={name}>
                <a
                  href={href.orders(name)}
                  aria-current={name === state ? 'true' : undefined}
                  data-count-state={name}
                >
                  <StateBadge state={name} />
                  <span className="count">{count ? `${count.count}${count.atLeast ? '+' : ''}` : '…'}</span>
                </a>
              </li>
            );
          })}
        </ul>
      </section>
      <section aria-labelledby="list-title">
        <div className="row">
          <h3 id="list-title">{state} orders</h3>
          <FilterSelect
            label="State"
            value={state}
            choices={STATES}
            onChange={(chosen) => {
              if (chosen) window.location.hash = href.orders(chosen);
            }}
          />
        </div>
        <Freshness loadedAt={list.loadedAt} />
        <ErrorNotice error={list.error} />
        <DataTable
          caption={`${state} orders, newest first`}
          columns={['Order', 'State', 'Failures', 'Attempt', 'Updated', 'Client']}
        >
          {(list.data?.items ?? []).map((row) => (
            <tr key={row.orderId} data-order-id={row.orderId}>
              <th scope="row">
                <a href={href.order(row.orderId)}>{row.orderId}</a>
              </th>
              <td>
                <StateBadge state={row.processState} />
              </td>
              <td>{row.failureCount}</td>
              <td>{row.attempt}</td>
              <td>{formatTime(row.updatedAt)}</td>
              <td>{row.clientId ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
        {list.data && list.data.items.length === 0 && <p>No {state} orders.</p>}
        <nav className="pager" aria-label="Pages">
          <button
            type="button"
            disabled={cursors.length < 2}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            Previous page
          </button>
          <span>Page {cursors.length}</span>
          <button
            type="button"
            disabled={!list.data?.nextCursor}
            onClick={() => list.data?.nextCursor && setCursors([...cursors, list.data.nextCursor])}
          >
            Next page
          </button>
        </nav>
      </section>
    </>
  );
}

function OrderSearch() {
  const [orderId, setOrderId] = useState('');
  const open = (event: FormEvent) => {
    event.preventDefault();
    if (orderId.trim()) window.location.hash = href.order(orderId.trim());
  };
  return (
    <search>
      <form onSubmit={open} className="row">
        <label htmlFor="order-search">Order id</label>
        <input
          id="order-search"
          value={orderId}
          onChange={(event) => setOrderId(event.target.value)}
          placeholder="e.g. order-123"
          autoComplete="off"
          required
        />
        <button type="submit">Open order</button>
      </form>
    </search>
  );
}
