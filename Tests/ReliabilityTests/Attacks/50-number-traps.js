// Passes numbers that no integer can hold wherever the page APIs take one, and throws errors
// whose line and column are such numbers: the app must keep running (each used to stop it).
const odd = [NaN, Infinity, -Infinity, 1e300, -1e300, 2 ** 64, -(2 ** 64)];
for (const id of odd) { clearTimeout(id); clearInterval(id); }
for (const delay of odd) clearTimeout(setTimeout(() => {}, delay));
for (const value of odd) {
  const e = new Error("odd line");
  try { Object.defineProperty(e, "line", { value }); e.column = value; } catch (_) {}
  setTimeout(() => { throw e; }, 0);
  Promise.reject(e);
}
await new Promise((resolve) => setTimeout(resolve, 20));
note("still works", await post({action: "status"}));
