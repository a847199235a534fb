import { type FormEvent, useRef, useState } from 'react';
import type {
  OperatorAction,
  OperatorActionResultBody,
  OperatorOrderDetailBody,
  OperatorRefusalBody,
} from '../../lambdas/scheduler-agent-supervisor/contracts/api';
import { operatorActionAvailability } from '../../lambdas/scheduler-agent-supervisor/contracts/operator-actions';
import { useConsoleApi } from './api';
import { DataTable, ErrorNotice, Freshness, formatTime, Section, StateBadge } from './common';
import { OrderChart } from './OrderChart';
import { href } from './route';
import { timelineOf } from './timeline';
import { usePolling } from './use-polling';
import { OrderWorkflow } from './WorkflowGraph';

export function OrderView({ orderId }: { readonly orderId: string }) {
  const api = useConsoleApi();
  const detail = usePolling(() => api.order(orderId), orderId);
  const order = detail.data;
  return (
    <>
      <p>
        <a href={href.orders(order?.processState)}>← Orders</a>
      </p>
      <h2 className="view-title">
        Order <span className="mono">{orderId}</span> {order && <StateBadge state={order.processState} />}
      </h2>
      <Freshness loadedAt={detail.loadedAt} />
      <ErrorNotice error={detail.error} />
      {order && (
        <>
          <OrderFacts order={order} />
          <Actions key={order.orderId} order={order} onDone={detail.refresh} />
          <Section title="Timeline chart">
            <OrderChart order={order} />
          </Section>
          <Section title="Workflow">
            <OrderWorkflow
              orderId={order.orderId}
              revision={`${order.attempt}|${order.processState}|${order.updatedAt}`}
            />
          </Section>
          <Section title="Timeline">
            <ol className="timeline">
              {timelineOf(order).map((entry) => (
                <li key={`${entry.at}|${entry.kind}|${entry.text}`} className={`kind-${entry.kind}`}>
                  <time dateTime={entry.at}>{formatTime(entry.at)}</time>{' '}
                  <span className="kind">{entry.kind}</span> {entry.text}
                </li>
              ))}
            </ol>
          </Section>
          <Section title="Steps">
            <DataTable columns={['Step', 'Status', 'Started', 'Ended', 'Confirmation']}>
              {order.steps.map((step) => (
                <tr key={step.name}>
                  <th scope="row">{step.name}</th>
                  <td>
                    <StateBadge state={step.status} />
                  </td>
                  <td>{formatTime(step.startedAt)}</td>
                  <td>{formatTime(step.completedAt ?? step.endedAt)}</td>
                  <td className="mono">{step.confirmationId ?? '—'}</td>
                </tr>
              ))}
            </DataTable>
          </Section>
          <Section title="Attempts">
            <ul>
              {order.attempts.map((attempt) => (
                <li key={attempt.executionName}>
                  Attempt {attempt.attempt}: {attempt.status} ({formatTime(attempt.startDate)} –{' '}
                  {formatTime(attempt.stopDate)})
                </li>
              ))}
            </ul>
          </Section>
          <RecordLogs order={order} />
        </>
      )}
    </>
  );
}

type Outcome = { readonly kind: 'done' | 'refused' | 'failed'; readonly text: string };

/** Why the API refused, in words (its 409 body: the record moved on, or its state forbids the action). */
function refusalText(action: OperatorAction, refusal: OperatorRefusalBody): string {
  if (refusal.refusal === 'StateChanged')
    return `Not done: the order moved on since you looked. It is now ${refusal.currentState} (updated ${formatTime(refusal.currentUpdatedAt)}). Look again before you ${action}.`;
  return `Not allowed: ${refusal.message} (the order is ${refusal.currentState}).`;
}

/**
 * One action's button: enabled only when the order as shown allows the action (the routes' own
 * rule, operatorActionAvailability), else disabled with the reason in words beside it, so nobody
 * learns it from a refusal. A click on an order that moved on since is still refused by the API.
 */
function ActionButton({
  action,
  label,
  order,
  onAsk,
}: {
  readonly action: OperatorAction;
  readonly label: string;
  readonly order: OperatorOrderDetailBody;
  readonly onAsk: (action: OperatorAction) => void;
}) {
  const availability = operatorActionAvailability(action, order);
  const whyId = `${action}-unavailable`;
  return (
    <div className="action">
      <button
        type="button"
        className={action === 'cancel' ? 'danger' : undefined}
        disabled={!availability.allowed}
        aria-describedby={availability.allowed ? undefined : whyId}
        onClick={() => onAsk(action)}
      >
        {label}
      </button>
      {!availability.allowed && (
        <p id={whyId} className="why" data-testid={whyId}>
          {availability.reason}
        </p>
      )}
    </div>
  );
}

/** Retry and cancel, each confirmed with a reason in a dialog; the answer is shown in words. */
function Actions({
  order,
  onDone,
}: {
  readonly order: OperatorOrderDetailBody;
  readonly onDone: () => void;
}) {
  const api = useConsoleApi();
  const dialog = useRef<HTMLDialogElement>(null);
  const [action, setAction] = useState<OperatorAction>('retry');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  // What the operator saw when asking: the action is conditional on it, not on a later poll.
  const [seen, setSeen] = useState({ state: order.processState, updatedAt: order.updatedAt });
  const ask = (chosen: OperatorAction) => {
    setAction(chosen);
    setSeen({ state: order.processState, updatedAt: order.updatedAt });
    setOutcome(undefined);
    dialog.current?.showModal();
  };
  const confirm = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const answer = await api.act(order.orderId, action, {
        reason,
        expectedState: seen.state,
        expectedUpdatedAt: seen.updatedAt,
      });
      setOutcome(
        answer.status === 409
          ? { kind: 'refused', text: refusalText(action, answer.body as OperatorRefusalBody) }
          : {
              kind: 'done',
              text: `Done: ${action} moved the order to ${(answer.body as OperatorActionResultBody).processState}.`,
            },
      );
      setReason('');
      onDone();
    } catch (error) {
      setOutcome({ kind: 'failed', text: (error as Error).message });
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return (
    <section aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <div className="row actions">
        <ActionButton action="retry" label="Retry…" order={order} onAsk={ask} />
        <ActionButton action="cancel" label="Cancel order…" order={order} onAsk={ask} />
      </div>
      {outcome && (
        <p
          className={`notice ${outcome.kind === 'done' ? 'success' : 'error'}`}
          role={outcome.kind === 'done' ? 'status' : 'alert'}
        >
          {outcome.text}
        </p>
      )}
      <dialog ref={dialog} aria-labelledby="confirm-title">
        <form onSubmit={confirm}>
          <h3 id="confirm-title">
            {action === 'retry' ? 'Retry' : 'Cancel'} order {order.orderId}?
          </h3>
          <p>
            It is {seen.state} (updated {formatTime(seen.updatedAt)}). The API acts only if it still is.
            {action === 'cancel' ? ' Cancelling undoes the completed steps (compensation).' : ''}
          </p>
          <label htmlFor="action-reason">Reason (recorded in the operator log)</label>
          <textarea
            id="action-reason"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            minLength={3}
            maxLength={500}
            required
          />
          <div className="row">
            <button type="submit" disabled={busy} className={action === 'cancel' ? 'danger' : undefined}>
              Confirm {action}
            </button>
            <button type="button" onClick={() => dialog.current?.close()}>
              Back
            </button>
          </div>
        </form>
      </dialog>
    </section>
  );
}

type Order = OperatorOrderDetailBody;

/** The record's counters, lock, client and times, and its last error when it has one. */
function OrderFacts({ order }: { readonly order: Order }) {
  return (
    <>
      <dl className="facts">
        <dt>State</dt>
        <dd data-testid="order-state">{order.processState}</dd>
        <dt>Failures</dt>
        <dd data-testid="failure-count">{order.failureCount}</dd>
        <dt>Attempt</dt>
        <dd>{order.attempt}</dd>
        <dt>Compensation failures</dt>
        <dd>{order.compensationFailureCount}</dd>
        <dt>Workflow version</dt>
        <dd>{order.workflowVersion}</dd>
        <dt>Locked by</dt>
        <dd>{order.lockedBy ?? '—'}</dd>
        <dt>Client</dt>
        <dd>{order.clientId ?? '—'}</dd>
        <dt>Created</dt>
        <dd>{formatTime(order.createdAt)}</dd>
        <dt>Updated</dt>
        <dd>{formatTime(order.updatedAt)}</dd>
      </dl>
      {order.lastError && (
        <p className="notice warning">
          Last error from {order.lastError.source} at {formatTime(order.lastError.at)}:{' '}
          {order.lastError.error} — {order.lastError.cause}
        </p>
      )}
    </>
  );
}

/** What the record logs beside its steps: the compensation's undos, the alerts raised, the operators' actions. */
function RecordLogs({ order }: { readonly order: Order }) {
  return (
    <>
      <Section title="Compensation log">
        {order.compensationLog.length === 0 ? (
          <p>Nothing to undo.</p>
        ) : (
          <ul>
            {order.compensationLog.map((entry) => (
              <li key={`${entry.step}-${entry.seq}`}>
                {entry.seq}. {entry.compensation ?? entry.step} undoes {entry.undoes ?? entry.step}:{' '}
                {entry.status ?? '?'}
                {entry.uncertain ? ' (effect uncertain)' : ''}
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Alerts">
        {order.alerts.length === 0 ? (
          <p>No alerts.</p>
        ) : (
          <ul>
            {order.alerts.map((alert) => (
              <li key={alert.eventId}>
                {formatTime(alert.at)} {alert.type}
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Operator log">
        {order.operatorLog.length === 0 ? (
          <p>No operator actions.</p>
        ) : (
          <ul>
            {order.operatorLog.map((entry) => (
              <li key={entry.at}>
                {formatTime(entry.at)} {entry.by} {entry.action}: {entry.seenState} → {entry.newState} (“
                {entry.reason}”)
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
