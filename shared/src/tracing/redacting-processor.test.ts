import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { RedactingSpanProcessor } from './redacting-processor';

/** A provider of its own (nothing registered globally), exporting to memory after the redaction. */
function tracerWithRedaction() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new RedactingSpanProcessor(), new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('test'), exporter };
}

describe('RedactingSpanProcessor', () => {
  it('when a span ends holding a key, a bearer value or a URL password in an attribute, then what is exported has them redacted and the rest intact', () => {
    const { tracer, exporter } = tracerWithRedaction();
    const span = tracer.startSpan('GET', { attributes: { 'url.query': 'limit=2&api_key=ask_live_abc123&status=sold' } });
    span.setAttributes({ 'url.full': 'http://pets:8082/pets?token=s3cret', 'server.address': 'postgres://app:hunter2@db/pets', 'http.response.status_code': 200 });
    span.end();

    const [exported] = exporter.getFinishedSpans();
    expect(exported!.attributes).toEqual({
      'url.query': 'limit=2&api_key=[redacted]&status=sold',
      'url.full': 'http://pets:8082/pets?token=[redacted]',
      'server.address': 'postgres://app:***@db/pets',
      'http.response.status_code': 200,
    });
  });

  it('when an exception is recorded whose message holds a bearer value, then the exported event has it redacted', () => {
    const { tracer, exporter } = tracerWithRedaction();
    const span = tracer.startSpan('rate-limit');
    span.recordException(new Error('upstream refused Authorization: Bearer ask_test_Zz9'));
    span.end();

    const message = String(exporter.getFinishedSpans()[0]!.events[0]!.attributes!['exception.message']);
    expect(message).not.toContain('Zz9');
    expect(message).toContain('[redacted]');
  });
});
