// Twenty page refreshes at once, while native code refreshes too: one token-endpoint call.
const calls = [];
for (let i = 0; i < 20; i++) calls.push(window.webkit.messageHandlers.session.postMessage({ action: "refresh" }));
const replies = await Promise.all(calls);
const distinct = new Set(replies.map(r => r.expiresAt));
console.log("20 page refreshes resolved, all with the same expiry:", distinct.size === 1);
const stats = await (await fetch("/debug/stats")).json();
console.log("server saw", stats.refreshes, "refresh(es) and", stats.reuseEvents, "reuse event(s)");
