// Provokes every error it can from the handler and reads all of each error's properties.
const bodies = [undefined, null, 0, "", "refresh", [], {}, {action: ""}, {action: "REFRESH"}, {action: "refresh_token"},
  {action: "logoutX"}, {action: 1}, {action: null}, {action: ["refresh"]}, {action: "status", extra: "sbrt_guess"}];
for (const body of bodies) {
  try { const r = await window.webkit.messageHandlers.session.postMessage(body); note("ok", r); }
  catch (e) {
    note("error", String(e), e && e.name, e && e.message, e && e.code, e && e.stack, safe(() => Object.getOwnPropertyNames(e)));
    walk(e, 3);
  }
}
for (const bad of [() => 1, Symbol("x"), 10n]) {
  try { await window.webkit.messageHandlers.session.postMessage({action: "refresh", bad}); note("accepted", typeof bad); }
  catch (e) { note("clone error", String(e), e && e.stack, e && e.code); }
}
