/** Spend against a limit as an SVG bar (drawn here: no chart library), with its numbers as text beside it. */
export function SpendBar({ window, spend, limit }: { window: string; spend: string; limit: number | null }) {
  const spent = Number(spend);
  const exact = limit === null ? 0 : limit === 0 ? (spent > 0 ? 1 : 0) : Math.min(spent / limit, 1);
  // Any spend shows: a hundredth of a cent against a limit of dollars would otherwise draw nothing.
  const share = spent > 0 ? Math.max(exact, 0.01) : exact;
  const text = limit === null ? `${spend} USDC spent this ${window}, uncapped` : `${spend} of ${limit} USDC spent this ${window}`;
  return (
    <div class="bar">
      <span class="bar-label">{window}</span>
      <svg viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label={text} class="bar-svg">
        <rect x="0" y="0" width="100" height="8" class="bar-track" />
        <rect x="0" y="0" width={String(share * 100)} height="8" class={share >= 1 ? 'bar-fill full' : 'bar-fill'} />
      </svg>
      <span class="bar-text">{text}</span>
    </div>
  );
}

/** Values per day as SVG columns, each with its date and value as a tooltip; the table beside it carries the same numbers. */
export function DayChart({ title, days, unit }: { title: string; days: Array<{ date: string; value: number }>; unit: string }) {
  const top = Math.max(...days.map((day) => day.value), 0);
  const width = Math.max(days.length, 1) * 10;
  const summary = days.length === 0 ? `${title}: nothing yet` : `${title}: ${days.map((day) => `${day.date} ${day.value} ${unit}`).join(', ')}`;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${width} 60`} preserveAspectRatio="none" role="img" aria-label={summary} class="chart-svg">
        <line x1="0" y1="60" x2={String(width)} y2="60" class="chart-axis" />
        {days.map((day, index) => {
          const height = top === 0 ? 0 : (day.value / top) * 56;
          return (
            <rect x={String(index * 10 + 1)} y={String(60 - height)} width="8" height={String(height)} class="chart-col">
              <title>{`${day.date}: ${day.value} ${unit}`}</title>
            </rect>
          );
        })}
      </svg>
      <div class="chart-range">
        <span>{days[0]?.date ?? ''}</span>
        <span>{days.length > 1 ? days[days.length - 1].date : ''}</span>
      </div>
    </figure>
  );
}
