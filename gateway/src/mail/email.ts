/** An email as the gateway writes it: plain text always (no HTML part), never a password or an API key. */
export interface Email {
  to: string;
  subject: string;
  text: string;
  /** Extra header fields, e.g. `List-Unsubscribe`. */
  headers?: Record<string, string>;
}
