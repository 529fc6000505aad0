// Floods the bridge with thousands of refresh calls without waiting, then collects every outcome.
const h = window.webkit.messageHandlers.session;
const calls = [];
for (let i = 0; i < 3000; i++) {
  try { calls.push(h.postMessage({action: "refresh"}).then(v => ["ok", v], e => ["err", String(e), e && e.code])); }
  catch (e) { calls.push(Promise.resolve(["sync", String(e)])); }
}
const results = await withTimeout(Promise.all(calls), 20000);
const distinct = new Map();
for (const r of results || []) { const key = JSON.stringify(r); distinct.set(key, (distinct.get(key) || 0) + 1); }
note("distinct outcomes", [...distinct.entries()]);
