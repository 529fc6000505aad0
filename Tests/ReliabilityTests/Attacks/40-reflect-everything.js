// Reflects on every object reachable from the global object through descriptors, getters included.
const visited = new Set();
let count = 0;
function reflect(v, depth) {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) { note(String(v)); return; }
  if (visited.has(v) || depth > 5 || count > 20000) return;
  visited.add(v);
  for (const k of safe(() => Reflect.ownKeys(v)) || []) {
    count++;
    note(String(k));
    const d = safe(() => Reflect.getOwnPropertyDescriptor(v, k));
    if (!d) continue;
    if ("value" in d) reflect(d.value, depth + 1);
    if (d.get) { reflect(d.get, depth + 1); reflect(safe(() => d.get.call(v)), depth + 1); }
  }
  reflect(safe(() => Reflect.getPrototypeOf(v)), depth + 1);
}
reflect(globalThis, 0);
note("reflected", count, visited.size);
