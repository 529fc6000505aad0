// Sends cyclic bodies: self-referencing objects, arrays and mutual cycles.
const results = [];
const a = {action: "refresh"}; a.self = a;
const b = ["refresh"]; b.push(b);
const c = {action: "refresh"}, d = {c}; c.d = d;
const e = {action: "refresh", list: []}; for (let i = 0; i < 100; i++) e.list.push(e);
for (const body of [a, b, c, e]) {
  try { results.push(["ok", await window.webkit.messageHandlers.session.postMessage(body)]); }
  catch (err) { results.push(["err", err && err.name, err && err.code, String(err)]); }
}
note("results", results);
