import { ConfigError } from '../config/env-reader';
import { MAX_WORKERS, workerCount } from './worker-count';

const shared = { cores: 8, hasDatabase: true, hasRedis: true };

describe('workerCount', () => {
  it.each([undefined, '', '  '])('is one worker, without a notice, when GW_WORKERS is unset or blank (%p)', (value) => {
    expect(workerCount({ ...shared, value })).toEqual({ count: 1 });
    expect(workerCount({ value, cores: 8, hasDatabase: false, hasRedis: false })).toEqual({ count: 1 });
  });

  it('takes a number as given when storage and Redis are shared', () => {
    expect(workerCount({ ...shared, value: '1' })).toEqual({ count: 1 });
    expect(workerCount({ ...shared, value: ' 3 ' })).toEqual({ count: 3 });
    expect(workerCount({ ...shared, value: String(MAX_WORKERS) })).toEqual({ count: MAX_WORKERS });
  });

  it('allows one worker without DATABASE_URL or REDIS_URL: that is the single process of today', () => {
    expect(workerCount({ value: '1', cores: 8, hasDatabase: false, hasRedis: false })).toEqual({ count: 1 });
  });

  it('turns `auto` into one worker per core', () => {
    expect(workerCount({ ...shared, value: 'auto' })).toEqual({ count: 8 });
    expect(workerCount({ ...shared, value: 'auto', cores: 1 })).toEqual({ count: 1 });
    expect(workerCount({ ...shared, value: 'auto', cores: 0 })).toEqual({ count: 1 });
    expect(workerCount({ ...shared, value: 'auto', cores: 4 * MAX_WORKERS })).toEqual({ count: MAX_WORKERS });
  });

  it('lets `auto` fall back to one worker without shared state, saying which variables are missing', () => {
    expect(workerCount({ value: 'auto', cores: 4, hasDatabase: false, hasRedis: true })).toEqual({
      count: 1,
      notice:
        'GW_WORKERS=auto starts one worker, not 4: more than one needs DATABASE_URL and REDIS_URL, for replay protection, limits, budgets and receipts shared between workers (DATABASE_URL is unset)',
    });
    expect(workerCount({ value: 'auto', cores: 4, hasDatabase: false, hasRedis: false }).notice).toContain('(DATABASE_URL and REDIS_URL are unset)');
    expect(workerCount({ value: 'auto', cores: 4, hasDatabase: true, hasRedis: false }).notice).toContain('(REDIS_URL is unset)');
  });

  it('needs no notice when `auto` finds one core anyway', () => {
    expect(workerCount({ value: 'auto', cores: 1, hasDatabase: false, hasRedis: false })).toEqual({ count: 1 });
  });

  it('refuses more than one worker without shared storage and Redis, in one line naming what is missing', () => {
    expect(() => workerCount({ value: '2', cores: 8, hasDatabase: false, hasRedis: false })).toThrow(
      new ConfigError('GW_WORKERS=2 needs DATABASE_URL and REDIS_URL, for replay protection, limits, budgets and receipts shared between workers (DATABASE_URL and REDIS_URL are unset)'),
    );
    expect(() => workerCount({ value: '2', cores: 8, hasDatabase: true, hasRedis: false })).toThrow(/\(REDIS_URL is unset\)$/);
    expect(() => workerCount({ value: '2', cores: 8, hasDatabase: false, hasRedis: true })).toThrow(/\(DATABASE_URL is unset\)$/);
  });

  it.each(['0', '-1', '1.5', 'two', 'AUTO', '1e2', String(MAX_WORKERS + 1), '99999999999999999999'])('refuses %p, naming the variable', (value) => {
    expect(() => workerCount({ ...shared, value })).toThrow(new ConfigError(`GW_WORKERS must be "auto" or an integer between 1 and ${MAX_WORKERS} (got "${value}")`));
  });
});
