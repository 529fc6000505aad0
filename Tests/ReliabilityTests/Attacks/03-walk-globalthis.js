// Walks every reachable property of the global object, four levels deep, including non-enumerables.
walk(globalThis, 4);
note("keys", Reflect.ownKeys(globalThis).map(String));
