// @ends-session
// Races refreshes against a logout, then refreshes again; replies after logout must not revive anything.
const h = window.webkit.messageHandlers.session;
const all = [];
for (let i = 0; i < 20; i++) all.push(h.postMessage({action: "refresh"}).then(v => ["r", v], e => ["re", e.code]));
all.push(h.postMessage({action: "logout"}).then(v => ["l", v], e => ["le", e.code]));
for (let i = 0; i < 20; i++) all.push(h.postMessage({action: "refresh"}).then(v => ["r2", v], e => ["r2e", e.code]));
note("outcomes", await withTimeout(Promise.all(all), 15000));
note("cookie", document.cookie);
note("me", await fetchText("/api/me"));
