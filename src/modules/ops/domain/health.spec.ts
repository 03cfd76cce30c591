import { overallStatus, unusableForReadiness, type DependencyChecks } from './health';

const healthy: DependencyChecks = {
  database: 'connected',
  redis: 'connected',
  solana_rpc: 'connected',
  providers: { openai: 'connected', nvidia: 'not_configured' },
  fee_sponsorship: 'ok',
};

describe('health rules', () => {
  it('is ok when every configured dependency is connected; unconfigured ones do not count', () => {
    expect(overallStatus(healthy)).toBe('ok');
    expect(overallStatus({ ...healthy, database: 'not_configured', redis: 'not_configured' })).toBe('ok');
  });

  it('is degraded when Redis, the chain RPC or a provider is in error', () => {
    expect(overallStatus({ ...healthy, redis: 'error' })).toBe('degraded');
    expect(overallStatus({ ...healthy, solana_rpc: 'error' })).toBe('degraded');
    expect(overallStatus({ ...healthy, providers: { openai: 'error' } })).toBe('degraded');
  });

  it('is degraded while the sponsored fees of the window are spent, and not for want of fee payers', () => {
    expect(overallStatus({ ...healthy, fee_sponsorship: 'exhausted' })).toBe('degraded');
    expect(overallStatus({ ...healthy, fee_sponsorship: 'not_configured' })).toBe('ok');
    expect(unusableForReadiness({ ...healthy, fee_sponsorship: 'exhausted' })).toEqual([]);
  });

  it('is error when configured storage is in error', () => {
    expect(overallStatus({ ...healthy, database: 'error', redis: 'error' })).toBe('error');
  });

  it('is not ready while the database or Redis is in error, whatever the RPC and providers say', () => {
    expect(unusableForReadiness(healthy)).toEqual([]);
    expect(unusableForReadiness({ ...healthy, solana_rpc: 'error', providers: { openai: 'error' } })).toEqual([]);
    expect(unusableForReadiness({ ...healthy, database: 'error', redis: 'error' })).toEqual(['database', 'redis']);
  });
});
