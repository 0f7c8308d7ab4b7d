import { ConfigError } from '../env';
import { tracingSettingsOf } from './settings';

describe('tracingSettingsOf', () => {
  it('when no OTLP endpoint is set, then tracing is off whatever else is set', () => {
    expect(tracingSettingsOf({}, 'gateway')).toBeUndefined();
    expect(tracingSettingsOf({ OTEL_TRACES_SAMPLER: 'nonsense' }, 'gateway')).toBeUndefined();
  });

  it('when an endpoint is set, then traces go over http/protobuf by default, under the default service name', () => {
    expect(tracingSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'gateway')).toEqual({ protocol: 'http/protobuf', defaultServiceName: 'gateway' });
    expect(tracingSettingsOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'pets-service')).toEqual({
      protocol: 'http/json',
      defaultServiceName: 'pets-service',
    });
  });

  it('when a variable is set but empty, then it counts as unset, as the OpenTelemetry specification says', () => {
    expect(tracingSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, 'gateway')).toBeUndefined();
    expect(tracingSettingsOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ' ', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: '' }, 'gateway')).toEqual({
      protocol: 'http/protobuf',
      defaultServiceName: 'gateway',
    });
  });

  it('when the SDK is disabled or the traces exporter is none, then tracing is off', () => {
    expect(tracingSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, 'gateway')).toBeUndefined();
    expect(tracingSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, 'gateway')).toBeUndefined();
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be a URL/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER_ARG: '10%' }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG/],
  ])('when a variable is wrong (%j), then start-up is refused naming it', (env, message) => {
    expect(() => tracingSettingsOf(env, 'gateway')).toThrow(ConfigError);
    expect(() => tracingSettingsOf(env, 'gateway')).toThrow(message);
  });
});
