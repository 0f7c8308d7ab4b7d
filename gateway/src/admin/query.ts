import type { Request } from 'express';
import { ApiError } from '../../../shared/src/errors';
import { LISTING_LIMIT } from './listing-limit';

const invalid = (message: string) => new ApiError('invalid_parameter', message);

/**
 * An admin listing's query string, read from the raw URL (as the public API does) so that a repeated
 * parameter or an empty one is seen as such. Unknown parameters are refused, naming them: a
 * misspelt filter must not silently list everything.
 */
export class ListingQuery {
  private readonly params: URLSearchParams;

  constructor(req: Request, known: readonly string[]) {
    const start = req.originalUrl.indexOf('?');
    this.params = new URLSearchParams(start < 0 ? '' : req.originalUrl.slice(start + 1));
    const unknown = [...new Set([...this.params.keys()].filter((name) => !known.includes(name)))];
    if (unknown.length > 0) {
      const accepted = known.length > 0 ? `accepted: ${known.join(', ')}` : 'this listing takes none';
      throw invalid(`Unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}; ${accepted}.`);
    }
  }

  /** The parameter's one value, or undefined when absent. */
  text(name: string): string | undefined {
    const values = this.params.getAll(name);
    if (values.length > 1) throw invalid(`${name} must be given at most once.`);
    if (values[0] === '') throw invalid(`${name} must not be empty.`);
    return values[0];
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    if (!/^[0-9]{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw invalid(`${name} must be an integer from ${min} to ${max}, got "${raw}".`);
    return Number(raw);
  }

  /** `limit`: the page size of a listing, within LISTING_LIMIT. */
  limit(): number {
    return this.integer('limit', LISTING_LIMIT.default, LISTING_LIMIT.minimum, LISTING_LIMIT.maximum);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const raw = this.text(name);
    if (raw === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(raw)) throw invalid(`${name} must be one of ${allowed.join(', ')}, got "${raw}".`);
    return raw as T;
  }

  /** A cursor this API handed out, decoded by `parse`; anything else is refused. */
  cursor<T>(parse: (cursor: string) => T | undefined): T | undefined {
    const raw = this.text('cursor');
    if (raw === undefined) return undefined;
    const position = parse(raw);
    if (position === undefined) throw invalid('cursor is not one this API handed out; take it from the Link header of the previous page.');
    return position;
  }
}

/** The relative next-page reference: the same listing with the same filters, one page further. */
export function nextPageLink(path: string, params: Record<string, string | number | undefined>, cursor: string): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
  query.set('cursor', cursor);
  return `<${path}?${query.toString()}>; rel="next"`;
}
