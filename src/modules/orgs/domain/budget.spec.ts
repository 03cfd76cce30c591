import { windowStart } from './budget';

describe('budget windows, calendar UTC', () => {
  const now = new Date('2026-11-25T17:42:13.500Z');

  it('start at the hour, the day from 00:00 and the month from the 1st', () => {
    expect(windowStart('hourly', now).toISOString()).toBe('2026-11-25T17:00:00.000Z');
    expect(windowStart('daily', now).toISOString()).toBe('2026-11-25T00:00:00.000Z');
    expect(windowStart('monthly', now).toISOString()).toBe('2026-11-01T00:00:00.000Z');
  });

  it('roll over at the boundary: the first instant of a window is in it, the last of the previous is not', () => {
    const newYear = new Date('2027-01-01T00:00:00.000Z');
    expect(windowStart('monthly', newYear).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(windowStart('monthly', new Date(newYear.getTime() - 1)).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(windowStart('hourly', new Date('2026-11-25T17:59:59.999Z')).toISOString()).toBe('2026-11-25T17:00:00.000Z');
  });
});
