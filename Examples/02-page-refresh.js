// The page asks native code to refresh: native code refreshes, writes the cookies, then replies.
const csrf = () => document.cookie.match(/csrf_token=([^;]*)/)?.[1];
const before = csrf();
const reply = await window.webkit.messageHandlers.session.postMessage({ action: "refresh" });
console.log("refresh replied", JSON.stringify(reply));
console.log("csrf_token rotated before the reply:", before !== undefined && csrf() !== before);
const me = await fetch("/api/me");
console.log("GET /api/me with the new cookie:", me.status, (await me.json()).sub);
