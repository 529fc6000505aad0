// @document foreign
// @expect no-refresh
// From an origin not on the allow-list, calls the session handler in every way.
const h = safe(() => window.webkit.messageHandlers.session);
note("handler visible", typeof h);
for (const body of [{action: "refresh"}, {action: "status"}, {action: "logout"}]) {
  try { note("reply", await h.postMessage(body)); } catch (e) { note("refused", String(e), e && e.code, e && e.stack); }
}
try { note(await window.sessionBridge.refresh()); } catch (e) { note("sessionBridge", String(e), e && e.code); }
note("cookie", document.cookie, "origin", location.href);
