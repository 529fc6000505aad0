// Looks for the app's isolated world: its marker global and its handler.
note("marker", typeof globalThis.appWorldMarker, safe(() => String(globalThis.appWorldMarker)));
const names = safe(() => Reflect.ownKeys(window.webkit.messageHandlers).map(String));
note("handlers", names);
for (const name of ["nativeStatus", "app", "world:app", "defaultClient"]) {
  const h = safe(() => window.webkit.messageHandlers[name]);
  note(name, typeof h);
  if (h) { try { note(await h.postMessage({action: "dump"})); } catch (e) { note(String(e), e && e.code); } }
}
for (const k of Reflect.ownKeys(globalThis)) { const s = String(k); if (/world|app|native|secret|marker/i.test(s)) note("global", s, safe(() => String(globalThis[k]).slice(0, 200))); }
