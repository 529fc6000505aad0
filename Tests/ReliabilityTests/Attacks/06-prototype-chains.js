// Follows the prototype chain of every bridge object and of the replies.
function chain(v, label) {
  let p = v, i = 0;
  while (p && i < 10) {
    note(label, i, safe(() => Reflect.ownKeys(p).map(String)), safe(() => String(p.constructor && p.constructor.name)));
    p = safe(() => Object.getPrototypeOf(p)); i++;
  }
}
const h = window.webkit.messageHandlers.session;
chain(h, "handler");
chain(h.postMessage, "postMessage");
const reply = await post({action: "refresh"});
chain(reply, "reply");
walk(reply, 6);
const p = window.webkit.messageHandlers.session.postMessage({action: "status"});
chain(p, "promise");
note("promise keys", safe(() => Object.getOwnPropertyNames(p)));
await p.catch(() => {});
note("__proto__ access", safe(() => h.__proto__ && Object.getOwnPropertyNames(h.__proto__)));
