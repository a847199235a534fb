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

/**
 * A table in a scrolling box (phone widths), its columns headed for screen readers; `caption` is
 * read to them only. The rows are the caller's.
 */
export function DataTable({
  caption,
  columns,
  children,
}: {
  readonly caption?: string;
  readonly columns: readonly string[];
  readonly children: ReactNode;
}) {
  return (
    <div className="table-scroll">
      <table>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * A labelled select that filters a list; with `everyChoice`, an empty first choice meaning no filter
 * (onChange then gets undefined).
 */
export function FilterSelect({
  label,
  value,
  choices,
  everyChoice,
  onChange,
}: {
  readonly label: string;
  readonly value: string | undefined;
  readonly choices: readonly string[];
  readonly everyChoice?: string;
  readonly onChange: (value: string | undefined) => void;
}) {
  return (
    <label>
      {label}{' '}
      <select value={value ?? ''} onChange={(event) => onChange(event.target.value || undefined)}>
        {everyChoice && <option value="">{everyChoice}</option>}
        {choices.map((name) => (
          <option key={name}>{name}</option>
        ))}
      </select>
    </label>
  );
}
