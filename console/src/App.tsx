import { useConsoleApi } from './api';
import { ErrorNotice, StateBadge } from './common';
import { DashboardView } from './DashboardView';
import { DeliveriesView, DeliveryView } from './DeliveriesView';
import { OrdersView } from './OrdersView';
import { OrderView } from './OrderView';
import { href, useRoute } from './route';
import { usePolling } from './use-polling';

export function App() {
  const route = useRoute();
  const { servesDeliveries, signOut } = useConsoleApi();
  const ordersCurrent = route.view === 'orders' || route.view === 'order';
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <h1>Operator console</h1>
        <nav aria-label="Sections">
          <a href={href.dashboard()} aria-current={route.view === 'dashboard' ? 'page' : undefined}>
            Dashboard
          </a>
          <a href={href.orders()} aria-current={ordersCurrent ? 'page' : undefined}>
            Orders
          </a>
          {servesDeliveries && (
            <a
              href={href.deliveries()}
              aria-current={route.view === 'deliveries' || route.view === 'delivery' ? 'page' : undefined}
            >
              Deliveries
            </a>
          )}
        </nav>
        {signOut && (
          <button type="button" className="sign-out" onClick={signOut}>
            Sign out
          </button>
        )}
      </header>
      <Alarms />
      <main id="main" tabIndex={-1}>
        {route.view === 'dashboard' && <DashboardView />}
        {route.view === 'orders' && <OrdersView state={route.state} />}
        {route.view === 'order' && <OrderView orderId={route.orderId} />}
        {route.view === 'deliveries' && <DeliveriesView status={route.status} />}
        {route.view === 'delivery' && <DeliveryView deliveryId={route.deliveryId} />}
      </main>
    </>
  );
}

/** Which app an alarm watches (`Orders: `), when the API says (the deployed page's does). */
function WingLabel({ wing }: { readonly wing: string | undefined }) {
  return wing === undefined ? null : <span className="alarm-wing">{wing}: </span>;
}

/** The alarms' states, always on screen: the first thing an operator checks. */
function Alarms() {
  const api = useConsoleApi();
  const alarms = usePolling(() => api.alarms(), 'alarms');
  const firing = (alarms.data ?? []).filter((alarm) => alarm.state === 'ALARM');
  return (
    <section className="alarms" aria-labelledby="alarms-title">
      <h2 id="alarms-title">
        Alarms{' '}
        <span className="summary">
          {alarms.data === undefined
            ? ''
            : firing.length === 0
              ? `(${alarms.data.length}, none firing)`
              : `(${firing.length} of ${alarms.data.length} firing)`}
        </span>
      </h2>
      <ErrorNotice error={alarms.error} />
      <details>
        <summary>Show every alarm</summary>
        <ul className="alarm-list">
          {(alarms.data ?? []).map((alarm) => (
            <li key={alarm.name} title={alarm.reason}>
              <StateBadge state={alarm.state} /> <WingLabel wing={alarm.wing} />
              {alarm.name}
            </li>
          ))}
        </ul>
      </details>
      {firing.length > 0 && (
        <ul className="alarm-list firing" aria-label="Firing alarms">
          {firing.map((alarm) => (
            <li key={alarm.name}>
              <StateBadge state={alarm.state} /> <WingLabel wing={alarm.wing} />
              {alarm.name}: {alarm.reason}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
