// Overrides Array.prototype methods and index setters, in case replies are built from arrays.
// The spy keeps what it sees in a plain object, so its own writes never reach its setters.
const spied = {};
let count = 0;
const saved = {};
for (const m of ["push", "map", "join", "forEach", "concat", "slice", "filter", "reduce"]) {
  saved[m] = Array.prototype[m];
  const real = saved[m];
  Array.prototype[m] = function (...args) {
    try { spied[count++] = m + ":" + this.length; for (let k = 0; k < this.length && k < 64; k++) if (typeof this[k] === "string") spied[count++] = this[k]; } catch (e) {}
    return real.apply(this, args);
  };
}
for (let i = 0; i < 6; i++) {
  Object.defineProperty(Array.prototype, String(i), { configurable: true, set(v) { spied[count++] = v; Object.defineProperty(this, String(i), {value: v, writable: true, enumerable: true, configurable: true}); } });
}
await post({action: "refresh"});
await post([{action: "refresh"}]);
await post({action: "status", list: [1, 2, 3]});
for (const m of Object.keys(saved)) Array.prototype[m] = saved[m];
for (let i = 0; i < 6; i++) delete Array.prototype[String(i)];
for (let i = 0; i < count; i++) walk(spied[i], 3);
console.log("REPORT-EARLY " + count);
