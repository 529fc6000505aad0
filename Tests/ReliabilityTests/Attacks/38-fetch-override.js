// Replaces fetch before the standard fetch-retry path runs, to capture what it sends and gets.
const captured = [];
const realFetch = window.fetch;
window.fetch = function (input, init) {
  captured.push(["request", String(input), init]);
  return realFetch.call(window, input, init).then(r => { captured.push(["response", r.status, safe(() => [...r.headers])]); return r; });
};
note("me", await fetchText("/api/me"));
try { await window.sessionBridge.refresh(); } catch (e) { captured.push(e); }
window.fetch = realFetch;
walk(captured, 4);
