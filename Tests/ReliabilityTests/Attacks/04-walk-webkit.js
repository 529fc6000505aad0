// Enumerates window.webkit, messageHandlers and every handler: descriptors, symbols, prototypes.
const w = window.webkit;
note("webkit type", typeof w, safe(() => Reflect.ownKeys(w).map(String)));
const handlers = w && w.messageHandlers;
note("handler keys", safe(() => Reflect.ownKeys(handlers).map(String)), safe(() => Object.keys(handlers)));
for (const name of ["session", "vault", "token", "refresh", "native", "nativeStatus", "secrets", "internal"]) {
  const h = safe(() => handlers[name]);
  note("handler", name, typeof h);
  if (h) {
    note("descriptors", safe(() => Object.getOwnPropertyDescriptors(h)));
    walk(h, 3);
    walk(Object.getPrototypeOf(h), 3);
  }
}
for (const sym of safe(() => Object.getOwnPropertySymbols(handlers)) || []) note("symbol", String(sym), safe(() => String(handlers[sym])));
walk(w, 5);
