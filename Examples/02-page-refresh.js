// The page asks native code to refresh: native code refreshes, writes the cookies, then replies.
const before = document.cookie.match(/session_expires=(\d+)/)?.[1];
const reply = await window.webkit.messageHandlers.session.postMessage({ action: "refresh" });
const after = document.cookie.match(/session_expires=(\d+)/)?.[1];
console.log("refresh replied", JSON.stringify(reply));
console.log("session_expires before", before, "after", after, "(written before the reply)");
const me = await fetch("/api/me");
console.log("GET /api/me with the new cookie:", me.status, (await me.json()).sub);
