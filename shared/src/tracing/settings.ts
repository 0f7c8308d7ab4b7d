import { EnvReader } from '../env';

/**
 * The standard OpenTelemetry variables that turn tracing on and shape it, checked before any SDK
 * module is loaded: a bad value stops the process with a message that names the variable, where
 * the SDK would log a diagnostic nobody reads and carry on with a default. The SDK then reads them
 * itself (endpoint, headers, timeout, sampler, batch sizes, resource attributes).
 */

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

export interface TracingSettings {
  protocol: OtlpProtocol;
  /** `OTEL_SERVICE_NAME` wins over it (the SDK's resource detection reads it). */
  defaultServiceName: string;
}

/** Undefined when tracing is off: no endpoint, `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Throws a ConfigError on a bad value. */
export function tracingSettingsOf(environment: NodeJS.ProcessEnv, defaultServiceName: string): TracingSettings | undefined {
  // The OpenTelemetry specification reads an empty variable as unset (a compose file's `OTEL_…=`).
  const env = Object.fromEntries(Object.entries(environment).filter(([name, value]) => !name.startsWith('OTEL_') || value?.trim()));
  const reader = new EnvReader(env);
  const endpointName = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none';
  if (disabled || env[endpointName] === undefined) return undefined;
  reader.url(endpointName, undefined, ['http:', 'https:']);
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = reader.oneOf<OtlpProtocol>(protocolName, 'http/protobuf', OTLP_PROTOCOLS);
  reader.oneOf('OTEL_TRACES_SAMPLER', 'parentbased_always_on', SAMPLERS);
  const ratio = reader.string('OTEL_TRACES_SAMPLER_ARG');
  if (ratio !== undefined && !(Number(ratio) >= 0 && Number(ratio) <= 1)) {
    reader.problem(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (the share of traces kept), got "${ratio}"`);
  }
  reader.finish();
  return { protocol, defaultServiceName };
}
