// Times replies, to see whether timing reveals anything (a token comparison, a cache).
const times = [];
for (let i = 0; i < 20; i++) {
  const t0 = Date.now();
  try { const r = await window.webkit.messageHandlers.session.postMessage({action: i % 2 ? "status" : "refresh"}); times.push([i, Date.now() - t0, r]); }
  catch (e) { times.push([i, Date.now() - t0, String(e)]); }
}
note("timings", times);
note("performance", typeof performance, safe(() => performance.now()));
