// Small DOM helpers of the ops console's views. Everything shown is written with textContent (or
// as text nodes), never as HTML.

export const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes: never parsed as HTML). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  return node;
}

/** The page's status line (read out by screen readers). */
export function status(message) {
  $('status').textContent = message;
}

/** The views, one shown at a time; signed out, none. */
export const VIEWS = ['accounts-view', 'account-view', 'usage-view', 'audit-view'];

/** Shows one view and marks its section's link in the navigation as the current page. */
export function show(view, section) {
  for (const id of VIEWS) $(id).hidden = id !== view;
  for (const link of document.querySelectorAll('#nav a')) {
    if (link.getAttribute('href') === `#${section}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

export function accountLink(id, label) {
  return el('a', { href: `#account/${encodeURIComponent(id)}` }, label ?? id);
}
