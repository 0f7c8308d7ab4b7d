import type { Attributes, Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { redactSecrets } from '../redact';

/**
 * No span carries an API key, a bearer value, a credential query parameter or a URL's password
 * (operating contract, "Tracing"): every string attribute a span ends with goes through the same
 * redaction as a log line. It catches what the instrumentations write from the wire (`url.query`,
 * `url.full` of the proxied request), the messages of recorded exceptions, and whatever a later
 * instrumentation adds. Runs as the span ends, while it can still be changed, before the batch
 * processor takes it; only sampled spans reach it.
 */
export class RedactingSpanProcessor implements SpanProcessor {
  onStart(_span: Span, _parentContext: Context): void {}

  onEnding(span: Span): void {
    redactAttributes(span.attributes, (name, redacted) => span.setAttribute(name, redacted));
    // An event's attributes (an exception's message and stack) are a plain object of the span's own.
    for (const event of span.events) {
      const attributes = event.attributes as Attributes | undefined;
      if (attributes) redactAttributes(attributes, (name, redacted) => (attributes[name] = redacted));
    }
  }

  onEnd(_span: ReadableSpan): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function redactAttributes(attributes: Attributes, replace: (name: string, redacted: string) => void): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value !== 'string') continue;
    const redacted = redactSecrets(value);
    if (redacted !== value) replace(name, redacted);
  }
}
