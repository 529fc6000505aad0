// Overrides Array.prototype methods and index setters, in case replies are built from arrays.
const spied = [];
const saved = {};
for (const m of ["push", "map", "join", "forEach", "concat", "slice", "filter", "reduce"]) {
  saved[m] = Array.prototype[m];
  const real = saved[m];
  Array.prototype[m] = function (...args) { try { spied.push(m + ":" + real.call(this, String).length); for (const x of this) if (typeof x === "string") spied[spied.length] = x; } catch (e) {} return real.apply(this, args); };
}
for (let i = 0; i < 6; i++) {
  Object.defineProperty(Array.prototype, String(i), { configurable: true, set(v) { spied[spied.length] = v; Object.defineProperty(this, String(i), {value: v, writable: true, enumerable: true, configurable: true}); } });
}
await post({action: "refresh"});
await post([{action: "refresh"}]);
await post({action: "status", list: [1, 2, 3]});
for (const m of Object.keys(saved)) Array.prototype[m] = saved[m];
for (let i = 0; i < 6; i++) delete Array.prototype[String(i)];
for (const s of spied) walk(s, 3);
console.log("REPORT-EARLY " + spied.length);
