import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

/** A form's own check refusing its input, before anything is sent. */
class InputProblem extends Error {}

/** Throws InputProblem when a validator found a problem. */
export function check(problem: string | null): void {
  if (problem !== null) throw new InputProblem(problem);
}

/** The API's envelope message and code, or the form's own problem. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiError)
    return (
      <p class="error" role="alert">
        {error.message} <code class="code">{error.code}</code>
      </p>
    );
  return (
    <p class="error" role="alert">
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}

/** Data loaded from the API, reloaded on demand and whenever `deps` change. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: unknown; reload: () => void } {
  const [state, setState] = useState<{ data: T | null; error: unknown }>({ data: null, error: null });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ data, error: null }),
      (error: unknown) => live && setState({ data: null, error }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  return { ...state, reload: useCallback(() => setRound((n) => n + 1), []) };
}

/** A form whose submit runs `submit`; a refusal (its own check or the API's) is shown under it. */
export function Form({ label, submitLabel, submit, children }: { label: string; submitLabel: string; submit: () => Promise<void>; children: ComponentChildren }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await submit();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form" aria-label={label} onSubmit={(event) => void onSubmit(event)} noValidate>
      {children}
      <button type="submit" disabled={busy}>
        {submitLabel}
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/** A labelled text field. */
export function Field({
  label,
  value,
  onInput,
  type = 'text',
  hint,
  autoComplete = 'off',
}: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: string;
  hint?: string;
  autoComplete?: string;
}) {
  return (
    <label class="field">
      <span>{label}</span>
      <input type={type} value={value} autoComplete={autoComplete} spellcheck={false} onInput={(event) => onInput((event.target as HTMLInputElement).value)} />
      {hint && <small>{hint}</small>}
    </label>
  );
}

export function Choice<T extends string>({ label, value, options, onChange }: { label: string; value: T; options: readonly T[]; onChange: (value: T) => void }) {
  return (
    <label class="field">
      <span>{label}</span>
      <select value={value} onChange={(event) => onChange((event.target as HTMLSelectElement).value as T)}>
        {options.map((option) => (
          <option value={option}>{option}</option>
        ))}
      </select>
    </label>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** A table that scrolls sideways on a narrow screen rather than overflowing the page. */
export function Table({ caption, head, rows }: { caption: string; head: string[]; rows: ComponentChildren[][] }) {
  return (
    <div class="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {head.map((cell) => (
              <th scope="col">{cell}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={head.length}>none yet</td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr>
                {row.map((cell) => (
                  <td>{cell}</td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

export const when = (iso: string | null): string => (iso === null ? '' : iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
