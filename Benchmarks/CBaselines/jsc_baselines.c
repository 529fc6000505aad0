#define _GNU_SOURCE
/* The raw JavaScriptCore C API round trips that the bridge is held to: a native function made
 * with JSObjectMakeFunctionWithCallback returns a deferred promise, and page code awaits it in
 * an async loop. No Swift anywhere on this path. */

#include "CBaselines.h"
#include "jsc_queue.h"

#include <JavaScriptCore/JavaScript.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dlfcn.h>
#include <malloc.h>

struct cb_js {
    cb_js_kind kind;
    JSContextGroupRef group;
    JSGlobalContextRef ctx;
    JSStringRef action_name, id_name, ok_name, expires_name, refresh_string;
    /* Set by the page's __done(sum). */
    int done;
    double sum;
    /* Hop kinds only. */
    int64_t js_spin_ns;
    int64_t worker_spin_ns;
    cb_queue requests;
    cb_queue replies;
    pthread_t worker;
    int has_worker;
};

/* JSObjectMakeFunctionWithCallback functions carry no private data; callbacks only run inside
 * cb_js_run, which sets this first (benches run one at a time, on the caller's thread). */
static cb_js *running;

/* Reads `action` and `id` of the body (2 gets); returns the id, or -1 when the body is wrong. */
static double read_body(cb_js *bench, JSContextRef ctx, JSValueRef body) {
    JSObjectRef object = JSValueToObject(ctx, body, NULL);
    if (!object) return -1;
    JSValueRef action = JSObjectGetProperty(ctx, object, bench->action_name, NULL);
    JSValueRef id = JSObjectGetProperty(ctx, object, bench->id_name, NULL);
    JSStringRef action_string = JSValueToStringCopy(ctx, action, NULL);
    int is_refresh = action_string && JSStringIsEqual(action_string, bench->refresh_string);
    if (action_string) JSStringRelease(action_string);
    return is_refresh ? JSValueToNumber(ctx, id, NULL) : -1;
}

/* `{ok: true, expiresAt: value}`: JSObjectMake plus 2 sets. */
static JSValueRef make_reply(cb_js *bench, JSContextRef ctx, double value) {
    JSObjectRef reply = JSObjectMake(ctx, NULL, NULL);
    JSObjectSetProperty(ctx, reply, bench->ok_name, JSValueMakeBoolean(ctx, true), kJSPropertyAttributeNone, NULL);
    JSObjectSetProperty(ctx, reply, bench->expires_name, JSValueMakeNumber(ctx, value), kJSPropertyAttributeNone, NULL);
    return reply;
}

static JSValueRef post_callback(JSContextRef ctx, JSObjectRef function, JSObjectRef this_object,
                                size_t argc, const JSValueRef argv[], JSValueRef *exception) {
    (void)function;
    (void)this_object;
    cb_js *bench = running;
    JSObjectRef resolve = NULL, reject = NULL;
    JSObjectRef promise = JSObjectMakeDeferredPromise(ctx, &resolve, &reject, exception);
    if (!promise) return NULL;
    JSValueRef argument = argc > 0 ? argv[0] : JSValueMakeUndefined(ctx);
    switch (bench->kind) {
    case CB_JS_SYNC:
        JSObjectCallAsFunction(ctx, resolve, NULL, 1, &argument, NULL);
        break;
    case CB_JS_STRUCT: {
        JSValueRef reply = make_reply(bench, ctx, read_body(bench, ctx, argument));
        JSObjectCallAsFunction(ctx, resolve, NULL, 1, &reply, NULL);
        break;
    }
    case CB_JS_HOP:
    case CB_JS_HOP_STRUCT: {
        double value = bench->kind == CB_JS_HOP ? JSValueToNumber(ctx, argument, NULL) : read_body(bench, ctx, argument);
        JSValueProtect(ctx, resolve);
        cb_item item = {resolve, value};
        cb_queue_push(&bench->requests, &item, 1);
        break;
    }
    }
    return promise;
}

static JSValueRef done_callback(JSContextRef ctx, JSObjectRef function, JSObjectRef this_object,
                                size_t argc, const JSValueRef argv[], JSValueRef *exception) {
    (void)function;
    (void)this_object;
    (void)exception;
    cb_js *bench = running;
    bench->sum = argc > 0 ? JSValueToNumber(ctx, argv[0], NULL) : -1;
    bench->done = 1;
    return JSValueMakeUndefined(ctx);
}

/* The worker never touches JavaScriptCore: it takes requests and hands back replies. */
static void *worker_main(void *argument) {
    cb_js *bench = argument;
    cb_item batch[CB_QUEUE_CAPACITY];
    for (;;) {
        size_t count = cb_queue_pop_all(&bench->requests, batch, CB_QUEUE_CAPACITY, bench->worker_spin_ns);
        if (count == 0) return NULL;
        /* The reply is computed here: expiresAt (or the echo) equals the id. */
        cb_queue_push(&bench->replies, batch, count);
    }
}

static JSObjectRef make_function(cb_js *bench, const char *name, JSObjectCallAsFunctionCallback callback) {
    JSStringRef function_name = JSStringCreateWithUTF8CString(name);
    JSObjectRef function = JSObjectMakeFunctionWithCallback(bench->ctx, function_name, callback);
    JSStringRelease(function_name);
    return function;
}

static int evaluate(cb_js *bench, const char *source) {
    JSStringRef script = JSStringCreateWithUTF8CString(source);
    JSValueRef exception = NULL;
    JSEvaluateScript(bench->ctx, script, NULL, NULL, 1, &exception);
    JSStringRelease(script);
    if (exception) {
        JSStringRef message = JSValueToStringCopy(bench->ctx, exception, NULL);
        char buffer[512] = "";
        if (message) {
            JSStringGetUTF8CString(message, buffer, sizeof buffer);
            JSStringRelease(message);
        }
        fprintf(stderr, "CBaselines: script failed: %s\n", buffer);
        return 0;
    }
    return 1;
}

cb_js *cb_js_open(cb_js_kind kind, const char *page_source, int64_t js_spin_ns, int64_t worker_spin_ns) {
    cb_js *bench = calloc(1, sizeof *bench);
    if (!bench) return NULL;
    bench->kind = kind;
    bench->js_spin_ns = js_spin_ns;
    bench->worker_spin_ns = worker_spin_ns;
    bench->group = JSContextGroupCreate();
    bench->ctx = JSGlobalContextCreateInGroup(bench->group, NULL);
    bench->action_name = JSStringCreateWithUTF8CString("action");
    bench->id_name = JSStringCreateWithUTF8CString("id");
    bench->ok_name = JSStringCreateWithUTF8CString("ok");
    bench->expires_name = JSStringCreateWithUTF8CString("expiresAt");
    bench->refresh_string = JSStringCreateWithUTF8CString("refresh");

    /* The same page-visible shape as the bridge: window.webkit.messageHandlers.h.postMessage. */
    JSObjectRef global = JSContextGetGlobalObject(bench->ctx);
    JSStringRef name = JSStringCreateWithUTF8CString("__nativePost");
    JSObjectSetProperty(bench->ctx, global, name, make_function(bench, "post", post_callback), kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
    name = JSStringCreateWithUTF8CString("__done");
    JSObjectSetProperty(bench->ctx, global, name, make_function(bench, "done", done_callback), kJSPropertyAttributeNone, NULL);
    JSStringRelease(name);
    if (!evaluate(bench, "var window = globalThis;"
                         "Object.defineProperty(globalThis, 'webkit', {value: Object.freeze({messageHandlers: "
                         "Object.freeze({h: Object.freeze({postMessage: Object.freeze(__nativePost)})})})});")
        || !evaluate(bench, page_source)) {
        cb_js_close(bench);
        return NULL;
    }
    if (kind == CB_JS_HOP || kind == CB_JS_HOP_STRUCT) {
        cb_queue_init(&bench->requests);
        cb_queue_init(&bench->replies);
        bench->has_worker = pthread_create(&bench->worker, NULL, worker_main, bench) == 0;
        if (!bench->has_worker) {
            cb_js_close(bench);
            return NULL;
        }
    }
    return bench;
}

int64_t cb_js_run(cb_js *bench, int64_t n, int lanes, int *ok) {
    if (lanes < 1) lanes = 1;
    int64_t per = n / lanes;
    char source[128];
    snprintf(source, sizeof source, "__run(%lld, %d)", (long long)n, lanes);
    bench->done = 0;
    bench->sum = 0;
    running = bench;
    int64_t start = cb_now_ns();
    int evaluated = evaluate(bench, source);
    if (evaluated && (bench->kind == CB_JS_HOP || bench->kind == CB_JS_HOP_STRUCT)) {
        cb_item batch[CB_QUEUE_CAPACITY];
        while (!bench->done) {
            size_t count = cb_queue_pop_all(&bench->replies, batch, CB_QUEUE_CAPACITY, bench->js_spin_ns);
            for (size_t i = 0; i < count; i++) {
                JSValueRef value = bench->kind == CB_JS_HOP ? JSValueMakeNumber(bench->ctx, batch[i].value)
                                                            : make_reply(bench, bench->ctx, batch[i].value);
                JSObjectCallAsFunction(bench->ctx, batch[i].resolve, NULL, 1, &value, NULL);
                JSValueUnprotect(bench->ctx, batch[i].resolve);
            }
        }
    }
    int64_t elapsed = cb_now_ns() - start;
    double m = (double)(per * lanes);
    *ok = evaluated && bench->done && bench->sum == m * (m - 1) / 2;
    return elapsed;
}

/* Exported by libjavascriptcoregtk-4.1 but declared only in WebKit's private JSBasePrivate.h. */
JS_EXPORT void JSSynchronousGarbageCollectForDebugging(JSContextRef ctx);

void cb_js_collect_garbage(cb_js *bench) {
    JSSynchronousGarbageCollectForDebugging(bench->ctx);
}

/* From JavaScriptCore's JSContextRefPrivate.h, exported by the library. */
JS_EXPORT void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef group, double limit,
    bool (*callback)(JSContextRef ctx, void *context), void *context);

void cb_js_set_time_limit(cb_js *bench, double seconds) {
    JSContextGroupSetExecutionTimeLimit(bench->group, seconds, NULL, NULL);
}

void cb_js_close(cb_js *bench) {
    if (!bench) return;
    if (bench->has_worker) {
        cb_queue_stop(&bench->requests);
        pthread_join(bench->worker, NULL);
        cb_queue_destroy(&bench->requests);
        cb_queue_destroy(&bench->replies);
    }
    JSStringRelease(bench->action_name);
    JSStringRelease(bench->id_name);
    JSStringRelease(bench->ok_name);
    JSStringRelease(bench->expires_name);
    JSStringRelease(bench->refresh_string);
    JSGlobalContextRelease(bench->ctx);
    JSContextGroupRelease(bench->group);
    free(bench);
}

int64_t cb_resident_bytes(void) {
    FILE *file = fopen("/proc/self/statm", "r");
    if (!file) return 0;
    long long size = 0, resident = 0;
    int fields = fscanf(file, "%lld %lld", &size, &resident);
    fclose(file);
    return fields == 2 ? resident * (int64_t)sysconf(_SC_PAGESIZE) : 0;
}

/* Hands memory the allocators hold free back to the system: JavaScriptCore's (WebKit's
 * exported `WTF::releaseFastMallocFreeMemory`, looked up at run time; skipped when absent) and
 * glibc's. Returns 1 when JavaScriptCore's was found. */
int cb_release_free_memory(void) {
    void (*release)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "_ZN3WTF27releaseFastMallocFreeMemoryEv");
    if (release) release();
    malloc_trim(0);
    return release != NULL;
}

double cb_js_evaluate_number(const char *source, double time_limit, int *ok) {
    JSContextGroupRef group = JSContextGroupCreate();
    JSGlobalContextRef ctx = JSGlobalContextCreateInGroup(group, NULL);
    if (time_limit > 0) JSContextGroupSetExecutionTimeLimit(group, time_limit, NULL, NULL);
    JSStringRef script = JSStringCreateWithUTF8CString(source);
    JSValueRef exception = NULL;
    JSValueRef value = JSEvaluateScript(ctx, script, NULL, NULL, 1, &exception);
    JSStringRelease(script);
    double result = 0;
    *ok = exception == NULL && value != NULL && JSValueIsNumber(ctx, value);
    if (*ok) result = JSValueToNumber(ctx, value, NULL);
    JSGlobalContextRelease(ctx);
    JSContextGroupRelease(group);
    return result;
}
