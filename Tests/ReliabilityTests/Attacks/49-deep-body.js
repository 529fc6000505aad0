// Sends deeply nested bodies (objects and arrays, 100 to 10000 levels).
const results = [];
for (const depth of [100, 1000, 10000]) {
  let o = {action: "refresh"}, a = ["refresh"];
  for (let i = 0; i < depth; i++) { o = {action: "refresh", next: o}; a = [a]; }
  for (const body of [o, a]) {
    try { results.push([depth, "ok", await window.webkit.messageHandlers.session.postMessage(body)]); }
    catch (e) { results.push([depth, "err", e && e.name, e && e.code, String(e).slice(0, 300)]); }
  }
}
note("results", results);
note("still works", await post({action: "status"}));
