/* The raw cost of many idle contexts: one group (one VM), each context with one native
 * function and a small bridge prelude, as a page with a bridge would have. */

#include "CBaselines.h"
#include "jsc_queue.h"

#include <JavaScriptCore/JavaScript.h>
#include <stdlib.h>

/* Exported by libjavascriptcoregtk-4.1 but declared only in WebKit's private JSBasePrivate.h:
 * a full, synchronous garbage collection. */
JS_EXPORT void JSSynchronousGarbageCollectForDebugging(JSContextRef ctx);

static JSValueRef native_post(JSContextRef ctx, JSObjectRef function, JSObjectRef this_object,
                              size_t argc, const JSValueRef argv[], JSValueRef *exception) {
    (void)function;
    (void)this_object;
    (void)exception;
    return argc > 0 ? argv[0] : JSValueMakeUndefined(ctx);
}

static const char *prelude =
    "(function () { const pending = new Map(); let next = 1;"
    "  globalThis.__bridge_reply = (id, value) => { const r = pending.get(id); pending.delete(id); if (r) r(value); };"
    "  const postMessage = body => new Promise(r => { const id = next++; pending.set(id, r); __native_post(id, body); });"
    "  Object.defineProperty(globalThis, 'webkit', {value: Object.freeze({messageHandlers: Object.freeze({h: Object.freeze({postMessage})})})});"
    "})();";

static void prepare(JSGlobalContextRef ctx) {
    JSStringRef name = JSStringCreateWithUTF8CString("__native_post");
    JSObjectSetProperty(ctx, JSContextGetGlobalObject(ctx), name,
                        JSObjectMakeFunctionWithCallback(ctx, name, native_post), kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
    JSStringRef script = JSStringCreateWithUTF8CString(prelude);
    JSEvaluateScript(ctx, script, NULL, NULL, 1, NULL);
    JSStringRelease(script);
}

int64_t cb_js_contexts(int count, int64_t *elapsed_ns) {
    JSContextGroupRef group = JSContextGroupCreate();
    JSGlobalContextRef first = JSGlobalContextCreateInGroup(group, NULL);
    prepare(first);
    JSGlobalContextRef *contexts = calloc((size_t)count, sizeof *contexts);
    JSSynchronousGarbageCollectForDebugging(first);
    int64_t before = cb_resident_bytes();
    int64_t start = cb_now_ns();
    for (int i = 0; contexts && i < count; i++) {
        contexts[i] = JSGlobalContextCreateInGroup(group, NULL);
        prepare(contexts[i]);
    }
    *elapsed_ns = cb_now_ns() - start;
    JSSynchronousGarbageCollectForDebugging(first);
    int64_t grown = cb_resident_bytes() - before;
    for (int i = 0; contexts && i < count; i++) JSGlobalContextRelease(contexts[i]);
    free(contexts);
    JSGlobalContextRelease(first);
    JSContextGroupRelease(group);
    return grown;
}
