// The ops console's calls to the admin API, with the operator's token as a bearer token. The token
// lives in sessionStorage (this tab only) and is never put in a cookie, so no other site can make
// the browser act with it.

import { nextLinkTarget } from './link-header.js';

const TOKEN_KEY = 'animal-store-ops-token';
const SVG = 'http://www.w3.org/2000/svg';

/** A refusal of the admin API, with its Error-shape message. */
export class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function keepToken(candidate) {
  sessionStorage.setItem(TOKEN_KEY, candidate);
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

// What a refused token does to the page (sign-in.js signs out); set there, so this module needs no page.
let whenTokenRefused = () => {};

export function onTokenRefused(handler) {
  whenTokenRefused = handler;
}

/** Calls the admin API; resolves to {data, next} where next is the Link rel="next" target, if any. */
export async function api(method, path, body) {
  const headers = { authorization: `Bearer ${token()}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let data = null;
  try {
    data = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: reported below by status
  }
  if (response.status === 401) {
    whenTokenRefused();
    throw new ApiFailure(401, data?.message ?? 'unauthorized');
  }
  if (!response.ok) throw new ApiFailure(response.status, data?.message ?? `${response.status} ${response.statusText}`);
  return { data, next: nextLinkTarget(response.headers.get('link')) ?? null };
}

/** An account's usage chart, drawn by the gateway: an <svg> element to put in the page. */
export async function historyChart(accountId) {
  const response = await fetch(`/admin/accounts/${encodeURIComponent(accountId)}/history.svg`, { headers: { authorization: `Bearer ${token()}` } });
  if (!response.ok) throw new ApiFailure(response.status, `the chart could not be loaded (${response.status})`);
  const drawing = new DOMParser().parseFromString(await response.text(), 'image/svg+xml').documentElement;
  if (drawing.namespaceURI !== SVG || drawing.localName !== 'svg') throw new ApiFailure(500, 'the chart is not an SVG drawing');
  return document.importNode(drawing, true);
}
