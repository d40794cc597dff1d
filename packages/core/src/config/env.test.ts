import { describe, expect, it } from 'vitest';
import { ConfigError, envBoolean, envEnum, envInteger, envString, envUrl, parseEnv } from './index';

const shape = {
  PORT: envInteger({ min: 1, max: 65535, default: 4020 }),
  DATABASE_URL: envUrl({ protocols: ['postgres:', 'postgresql:'], optional: true }),
  LOG_LEVEL: envEnum(['debug', 'info', 'warn'] as const, { default: 'info' }),
  PRETTY: envBoolean({ default: false }),
  ORIGIN: envString({ default: 'http://localhost:4020' }),
};

describe('parseEnv', () => {
  it('applies defaults and leaves optional values undefined', () => {
    expect(parseEnv({}, shape)).toEqual({ PORT: 4020, DATABASE_URL: undefined, LOG_LEVEL: 'info', PRETTY: false, ORIGIN: 'http://localhost:4020' });
  });

  it('parses typed values', () => {
    const config = parseEnv({ PORT: '8080', DATABASE_URL: 'postgres://u@h/db', LOG_LEVEL: 'debug', PRETTY: '1', ORIGIN: 'https://pay.example' }, shape);
    expect(config).toEqual({ PORT: 8080, DATABASE_URL: 'postgres://u@h/db', LOG_LEVEL: 'debug', PRETTY: true, ORIGIN: 'https://pay.example' });
  });

  it('treats an empty string as unset', () => {
    expect(parseEnv({ PORT: '' }, shape).PORT).toBe(4020);
  });

  it('names every wrong variable and what it expected', () => {
    let error: unknown;
    try {
      parseEnv({ PORT: 'http', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', PRETTY: 'yes' }, shape);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const config = error as ConfigError;
    expect(config.problems.map((p) => p.variable)).toEqual(['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'PRETTY']);
    expect(config.message).toContain('PORT: expected an integer from 1 to 65535, got "http"');
    expect(config.message).toContain('DATABASE_URL: expected a URL with protocol postgres: or postgresql:, got "mysql://x"');
    expect(config.message).toContain('LOG_LEVEL: expected one of debug, info, warn, got "loud"');
  });

  it('never repeats a password found in a rejected URL', () => {
    let message = '';
    try {
      parseEnv({ DATABASE_URL: 'postgress://admin:hunter2/x@db/app' }, shape);
    } catch (error) {
      message = (error as ConfigError).message + JSON.stringify((error as ConfigError).problems);
    }
    expect(message).toContain('postgress://admin:***@db/app');
    expect(message).not.toContain('hunter2');
  });

  it('refuses a missing required value and out-of-range integers', () => {
    expect(() => parseEnv({}, { SECRET: envString() })).toThrow(/SECRET: expected a non-empty string, got nothing/);
    expect(() => parseEnv({ PORT: '70000' }, shape)).toThrow(/PORT: expected an integer from 1 to 65535/);
    expect(() => parseEnv({ PORT: '1.5' }, shape)).toThrow(/PORT/);
  });
});
