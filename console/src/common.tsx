import type { ReactNode } from 'react';

/** An error in words, announced to screen readers; the view around it keeps its last data. */
export function ErrorNotice({ error }: { readonly error?: string | undefined }) {
  if (!error) return null;
  return (
    <p className="notice error" role="alert">
      {error}
    </p>
  );
}

/** When the view last read, announced politely so live updates do not interrupt. */
export function Freshness({ loadedAt }: { readonly loadedAt?: Date | undefined }) {
  return (
    <p className="freshness" aria-live="polite">
      {loadedAt ? `Live: updated ${loadedAt.toLocaleTimeString()}` : 'Loading…'}
    </p>
  );
}

/** A state as a badge: the word is always written, colour only adds to it. */
export function StateBadge({ state }: { readonly state: string }) {
  return (
    <span className={`badge state-${state}`} data-state={state}>
      {state}
    </span>
  );
}

export function formatTime(iso?: string): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function Section({ title, children }: { readonly title: string; readonly children: ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
