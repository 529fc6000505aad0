// Sends bodies whose getters, toJSON, valueOf and proxies run during cloning.
const log = [];
const getterBody = { get action() { log.push("action read " + new Error().stack); return "refresh"; }, toJSON() { log.push("toJSON"); return {}; } };
await post(getterBody);
const proxy = new Proxy({action: "refresh"}, {
  get(t, k, r) { log.push("get " + String(k)); return Reflect.get(t, k, r); },
  ownKeys(t) { log.push("ownKeys"); return Reflect.ownKeys(t); },
  getOwnPropertyDescriptor(t, k) { log.push("gopd " + String(k)); return Reflect.getOwnPropertyDescriptor(t, k); },
  set(t, k, v) { log.push("set " + String(k) + "=" + String(v)); return Reflect.set(t, k, v); },
  defineProperty(t, k, d) { log.push("define " + String(k) + "=" + safe(() => String(d.value))); return Reflect.defineProperty(t, k, d); },
});
await post(proxy);
const throwing = { get action() { throw new Error("getter threw"); } };
await post(throwing);
const objValue = { action: { toString() { log.push("toString"); return "refresh"; }, valueOf() { log.push("valueOf"); return "refresh"; } } };
await post(objValue);
const withProto = Object.create({ action: "refresh" });
await post(withProto);
note("log", log);
