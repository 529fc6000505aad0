// Replaces Promise, then/catch/finally and resolve with spies before bridge calls.
const RealPromise = Promise, realThen = Promise.prototype.then, realResolve = Promise.resolve;
const spied = [];
Promise.prototype.then = function (a, b) {
  return realThen.call(this, v => { spied.push(v); return a ? a(v) : v; }, e => { spied.push(e); if (b) return b(e); throw e; });
};
Promise.resolve = function (v) { spied.push(v); return realResolve.call(RealPromise, v); };
globalThis.Promise = function FakePromise(executor) { spied.push("constructed"); return new RealPromise(executor); };
globalThis.Promise.prototype = RealPromise.prototype;
globalThis.Promise.resolve = Promise.resolve;
globalThis.Promise.reject = RealPromise.reject.bind(RealPromise);
await post({action: "refresh"});
await sleep(60);
try { await window.sessionBridge.refresh(); } catch (e) { spied.push(e); }
await post({action: "nope"});
globalThis.Promise = RealPromise; Promise.prototype.then = realThen; Promise.resolve = realResolve;
for (const v of spied) walk(v, 4);
note("spied count", spied.length);
