// Reads document.cookie before and after refreshes, and every cookie API it can think of.
note("before", document.cookie);
for (const name of ["cookieStore", "cookies", "__cookies", "cookieJar"]) note(name, typeof globalThis[name], safe(() => String(globalThis[name])));
note("descriptor", safe(() => Object.getOwnPropertyDescriptor(document, "cookie")));
note("proto-descriptor", safe(() => { const d = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(document), "cookie"); return d && String(d.get) + String(d.set); }));
await post({action: "refresh"});
note("after refresh", document.cookie);
await sleep(80);
await post({action: "refresh"});
note("after second refresh", document.cookie);
note("split", document.cookie.split("; "));
