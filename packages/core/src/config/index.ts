export { parseEnv, envInteger, envString, envUrl, envEnum, envBoolean, ConfigError, type EnvRecord, type EnvVarSchema, type EnvOptions } from './env';
