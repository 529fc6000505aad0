// Replaces JSON.stringify and JSON.parse with spies before bridge calls.
const realStringify = JSON.stringify, realParse = JSON.parse;
const spied = [];
JSON.stringify = function (v) { const s = realStringify.apply(this, arguments); spied.push("stringify:" + s); return s; };
JSON.parse = function (s) { spied.push("parse:" + s); return realParse.apply(this, arguments); };
await post({action: "refresh"});
await sleep(60);
await post({action: "refresh"});
await post({action: "status"});
try { await window.sessionBridge.refresh(); } catch (e) { spied.push(String(e)); }
note("me", await fetchText("/api/me"));
JSON.stringify = realStringify; JSON.parse = realParse;
note("spied", spied);
