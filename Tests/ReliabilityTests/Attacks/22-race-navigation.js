// Starts refreshes and navigates away at once, so replies race the navigation.
const h = window.webkit.messageHandlers.session;
const pending = [];
for (let i = 0; i < 50; i++) pending.push(h.postMessage({action: "refresh"}).then(v => console.log("late reply " + JSON.stringify(v)), e => console.log("late error " + String(e) + " " + (e && e.code))));
note("navigating with", pending.length, "calls pending");
console.log("REPORT-EARLY " + JSON.stringify(seen));
location.href = "/app";
