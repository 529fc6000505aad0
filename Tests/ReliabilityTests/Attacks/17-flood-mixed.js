// Floods with a mix of status, refresh, malformed and oversized calls in tight loops.
const h = window.webkit.messageHandlers.session;
const outcomes = {};
const all = [];
for (let i = 0; i < 2500; i++) {
  const body = [{action: "status"}, {action: "refresh"}, {action: "x" + i}, "s", {action: "status", pad: "y".repeat(i % 50)}][i % 5];
  try { all.push(h.postMessage(body).then(v => JSON.stringify(v), e => "E:" + (e && e.code) + ":" + String(e))); }
  catch (e) { all.push(Promise.resolve("S:" + String(e))); }
}
for (const r of (await withTimeout(Promise.all(all), 20000)) || []) outcomes[r] = (outcomes[r] || 0) + 1;
note("outcomes", outcomes);
