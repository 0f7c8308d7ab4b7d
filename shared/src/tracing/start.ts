import { loadOrExit } from '../env';
import { tracingSettingsOf } from './settings';

/**
 * Starts tracing when the environment asks for it (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), before the modules it instruments are loaded: each
 * service's entry imports its preload module first. Off, nothing of OpenTelemetry is loaded.
 */
export function startTracingIfConfigured(defaultServiceName: string): void {
  const settings = loadOrExit(() => tracingSettingsOf(process.env, defaultServiceName), defaultServiceName);
  if (settings === undefined) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the SDK is loaded only when tracing is on
  (require('./sdk') as typeof import('./sdk')).startTracing(settings);
}
