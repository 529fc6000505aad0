// Leaves bridge rejections unhandled and throws uncaught errors, so their text reaches the error channel.
const h = window.webkit.messageHandlers.session;
h.postMessage({action: "nope"});
h.postMessage(12);
h.postMessage({action: "refresh", f: () => 0});
setTimeout(() => { throw new Error("uncaught with " + document.cookie); }, 0);
Promise.reject(new Error("rejected on purpose"));
await sleep(100);
note("done", document.cookie);
