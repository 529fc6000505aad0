// Sends bodies beyond every size limit: a 3 MiB string, a 200k-element array, 50k keys.
const results = [];
const big = "A".repeat(3 << 20);
for (const body of [{action: "refresh", big}, {action: "refresh", list: new Array(200000).fill(1)},
  Object.fromEntries(Array.from({length: 50000}, (_, i) => ["k" + i, i])), {action: big}]) {
  try { results.push(["ok", await window.webkit.messageHandlers.session.postMessage(body)]); }
  catch (e) { results.push(["err", e && e.name, e && e.code, String(e).slice(0, 500)]); }
}
note("results", results);
note("still works", await post({action: "status"}));
