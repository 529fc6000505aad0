// Spies on Function.prototype.toString/call/apply/bind while the bridge and standard scripts run.
const spied = [];
const realToString = Function.prototype.toString, realCall = Function.prototype.call, realApply = Function.prototype.apply, realBind = Function.prototype.bind;
Function.prototype.toString = function () { const s = realApply.call(realToString, this, []); spied.push("toString " + s.slice(0, 200)); return s; };
Function.prototype.apply = function (t, args) { try { for (const a of args || []) spied.push(a); } catch (e) {} return realApply.call(realCall, realApply, [this, t, args]); };
try { await window.sessionBridge.refresh(); } catch (e) { spied.push(e); }
await post({action: "status"});
Function.prototype.toString = realToString; Function.prototype.apply = realApply;
Function.prototype.call = realCall; Function.prototype.bind = realBind;
for (const s of spied) walk(s, 3);
note("spied", spied.length);
