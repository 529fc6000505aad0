// Native code signed in; the page only asks what it may know: never a token.
const status = await window.webkit.messageHandlers.session.postMessage({ action: "status" });
console.log("signed in:", status.signedIn, "access token expires in", Math.round((status.expiresAt - Date.now()) / 1000), "s");
console.log("document.cookie shows only readable cookies:", document.cookie.split("; ").map(c => c.split("=")[0]).join(", "));
