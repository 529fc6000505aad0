// Logout through native code: the server's deletions (Max-Age=0 and past Expires) are applied to
// the native store and to the page store; the vault is emptied.
const reply = await window.webkit.messageHandlers.session.postMessage({ action: "logout" });
console.log("logout replied", JSON.stringify(reply));
console.log("cookies left in the page:", JSON.stringify(document.cookie));
const status = await window.webkit.messageHandlers.session.postMessage({ action: "status" });
console.log("signed in:", status.signedIn);
