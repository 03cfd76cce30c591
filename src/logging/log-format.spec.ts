import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../config/env-reader';
import { loadConfig } from '../config/load-config';
import { logFormat } from './log-format';

const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const base = (): Record<string, string> => ({ GW_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-log-format-')), GW_RECIPIENT_WALLET: WALLET });

describe('logFormat', () => {
  it.each([
    ['development', true, 'pretty'],
    ['development', false, 'json'],
    ['production', true, 'json'],
    ['production', false, 'json'],
  ] as const)('in %s with a terminal %s: %s', (env, isTty, expected) => {
    expect(logFormat({ env, isTty })).toBe(expected);
    expect(logFormat({ env, isTty, override: null })).toBe(expected);
  });

  it('lets GW_LOG_FORMAT win either way', () => {
    expect(logFormat({ env: 'production', isTty: false, override: 'pretty' })).toBe('pretty');
    expect(logFormat({ env: 'development', isTty: true, override: 'json' })).toBe('json');
  });
});

describe('GW_LOG_FORMAT in the configuration', () => {
  it('is null unset or blank, so that the logger chooses', () => {
    expect(loadConfig(base()).config.logFormat).toBeNull();
    expect(loadConfig({ ...base(), GW_LOG_FORMAT: '  ' }).config.logFormat).toBeNull();
  });

  it('takes json and pretty', () => {
    expect(loadConfig({ ...base(), GW_LOG_FORMAT: 'json' }).config.logFormat).toBe('json');
    expect(loadConfig({ ...base(), GW_LOG_FORMAT: 'pretty' }).config.logFormat).toBe('pretty');
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => loadConfig({ ...base(), GW_LOG_FORMAT: 'text' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base(), GW_LOG_FORMAT: 'text' })).toThrow('GW_LOG_FORMAT must be one of json, pretty (got "text")');
  });
});
