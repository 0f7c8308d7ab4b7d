// Shared by the service tier's environment (handle-guard-environment.js) and gateway tests; plain
// JavaScript because jest loads an environment as it is (typed in active-resources.d.ts).

/** This process's handles and requests that keep it running (timers, sockets, child processes, servers), by kind; not the terminal. */
function activeResources() {
  return process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
}

/** The kinds `now` holds more of than `before` (each kind counted). */
function addedResources(before, now) {
  const left = [...before];
  return now.filter((kind) => {
    const index = left.indexOf(kind);
    if (index < 0) return true;
    left.splice(index, 1);
    return false;
  });
}

module.exports = { activeResources, addedResources };
