// The developer portal's only script (an ES module, served by the gateway; no build step).
// Every page works without it: it adds copy buttons and keeps the usage numbers current.

const USAGE_REFRESH_MS = 5000;

/** Copy buttons: `<button data-copy="ID">` copies the text of the element with that id. */
function enableCopyButtons() {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const source = document.getElementById(button.dataset.copy);
    if (!source) continue;
    const label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', async () => {
      const copied = await copyText(source);
      button.textContent = copied ? 'Copied' : 'Select and copy by hand';
      setTimeout(() => {
        button.textContent = label;
      }, 2000);
    });
  }
}

async function copyText(source) {
  const text = source.textContent ?? '';
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (e.g. plain http on another host than localhost): select the text instead.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    return document.execCommand?.('copy') ?? false;
  }
}

/** The usage card asks `/portal/usage` for the current numbers while the page is visible. */
function refreshUsage() {
  const card = document.querySelector('[data-usage-url]');
  if (!card) return;
  const url = card.dataset.usageUrl;
  const format = new Intl.NumberFormat('en-US');
  let timer;

  const update = async () => {
    if (document.visibilityState !== 'visible') return;
    let response;
    try {
      response = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
    } catch {
      return; // offline for a moment: try again next time
    }
    if (response.status === 401) {
      clearInterval(timer); // the session ended; the next page load shows the log-in form
      return;
    }
    if (!response.ok) return;
    const usage = await response.json();
    for (const name of ['minute', 'day']) {
      const numbers = usage?.[name];
      const box = card.querySelector(`[data-window="${name}"]`);
      if (!numbers || !box) continue;
      for (const field of ['used', 'limit', 'remaining']) {
        const element = box.querySelector(`[data-field="${field}"]`);
        if (element) element.textContent = format.format(numbers[field]);
      }
      const meter = box.querySelector('progress');
      if (meter) {
        meter.max = numbers.limit;
        meter.value = numbers.used;
      }
      const reset = box.querySelector('[data-field="resetAt"]');
      if (reset) {
        reset.dateTime = numbers.resetAt;
        reset.textContent = `${numbers.resetAt.slice(0, 10)} ${numbers.resetAt.slice(11, 16)} UTC`;
      }
    }
  };

  timer = setInterval(update, USAGE_REFRESH_MS);
  document.addEventListener('visibilitychange', update);
}

enableCopyButtons();
refreshUsage();
