// Reloads during a flood of bridge calls; the old document's calls must end quietly.
const h = window.webkit.messageHandlers.session;
for (let i = 0; i < 300; i++) h.postMessage({action: i % 3 ? "status" : "refresh"}).then(v => console.log("reply " + JSON.stringify(v)), e => console.log("error " + String(e) + " " + e.code + " " + e.stack));
console.log("cookie before reload " + document.cookie);
// Reload once (a page that reloads on every load never ends, in any browser).
if (!document.cookie.includes("reloaded=1")) {
  document.cookie = "reloaded=1; path=/";
  location.reload();
}
