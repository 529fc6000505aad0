#include "CBaselines.h"
#include <JavaScriptCore/JavaScript.h>
#include <stdio.h>
#include <time.h>

static JSValueRef cb_identity(JSContextRef ctx, JSObjectRef function, JSObjectRef this_object,
                              size_t argc, const JSValueRef argv[], JSValueRef *exception) {
    (void)function; (void)this_object; (void)exception;
    return argc > 0 ? argv[0] : JSValueMakeUndefined(ctx);
}

static int64_t cb_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int64_t cb_native_call(int64_t n, int *ok) {
    JSGlobalContextRef ctx = JSGlobalContextCreate(NULL);
    JSStringRef name = JSStringCreateWithUTF8CString("f");
    JSObjectRef function = JSObjectMakeFunctionWithCallback(ctx, name, cb_identity);
    JSObjectSetProperty(ctx, JSContextGetGlobalObject(ctx), name, function, kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
    char source[160];
    snprintf(source, sizeof source, "(function (n) { let s = 0; for (let i = 0; i < n; i++) s += f(1); return s; })(%lld)", (long long)n);
    JSStringRef script = JSStringCreateWithUTF8CString(source);
    JSStringRef warm = JSStringCreateWithUTF8CString("(function () { let s = 0; for (let i = 0; i < 100000; i++) s += f(1); return s; })()");
    JSEvaluateScript(ctx, warm, NULL, NULL, 1, NULL);
    int64_t start = cb_now_ns();
    JSValueRef result = JSEvaluateScript(ctx, script, NULL, NULL, 1, NULL);
    int64_t elapsed = cb_now_ns() - start;
    *ok = result != NULL && JSValueToNumber(ctx, result, NULL) == (double)n;
    JSStringRelease(script);
    JSStringRelease(warm);
    JSGlobalContextRelease(ctx);
    return elapsed;
}
