#ifndef SESSIONBRIDGE_CJAVASCRIPTCORE_SHIM_H
#define SESSIONBRIDGE_CJAVASCRIPTCORE_SHIM_H

#include <JavaScriptCore/JavaScript.h>
#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Functions exported by libjavascriptcoregtk-4.1 but declared only in WebKit's private headers.
 * Signatures copied from WebKit's Source/JavaScriptCore/API/JSContextRefPrivate.h and
 * JSContextRefPrivate.h / JSBasePrivate.h.
 */

/// JSContextRefPrivate.h: called while a script runs past the limit; return true to terminate it.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);

/// JSContextRefPrivate.h: sets the execution time limit (seconds of CPU time) for every context in the group.
JS_EXPORT void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef group, double limit,
                                                   JSShouldTerminateCallback callback, void *context);

/// JSContextRefPrivate.h: removes the execution time limit of the group.
JS_EXPORT void JSContextGroupClearExecutionTimeLimit(JSContextGroupRef group);

/// JSContextRefPrivate.h: `function` is called with (promise, reason) for each rejection left unhandled.
JS_EXPORT bool JSGlobalContextSetUnhandledRejectionCallback(JSGlobalContextRef ctx, JSObjectRef function,
                                                            JSValueRef *exception);

/// JSContextRefPrivate.h: whether `eval`, `Function` and their kin compile code; when they may
/// not, they throw an `EvalError` with `message`. Code the C API evaluates is not affected.
JS_EXPORT void JSGlobalContextSetEvalEnabled(JSGlobalContextRef ctx, bool enabled, JSStringRef message);

/// JSContextRefPrivate.h: the JavaScript call stack now, innermost first, a line per frame
/// (`#0 name() at url:line`), at most `maxStackSize` frames.
JS_EXPORT JSStringRef JSContextCreateBacktrace(JSContextRef ctx, unsigned maxStackSize);

/// JSBasePrivate.h: a full, synchronous garbage collection (used by memory tests and benchmarks).
JS_EXPORT void JSSynchronousGarbageCollectForDebugging(JSContextRef ctx);

/// JSBasePrivate.h: an object describing the VM's heap (`heapSize`, `objectCount`,
/// `globalObjectCount`, `protectedGlobalObjectCount`, ...), for memory tests and benchmarks.
JS_EXPORT JSObjectRef JSGetMemoryUsageStatistics(JSContextRef ctx);

/// JSScriptRefPrivate.h: a script parsed once for a context group (VM), to be evaluated in any
/// of the group's contexts without handing its text to JavaScriptCore again. NULL when the
/// source does not parse (`errorMessage` and `errorLine` then say why).
typedef struct OpaqueJSScript *JSScriptRef;
JS_EXPORT JSScriptRef JSScriptCreateFromString(JSContextGroupRef contextGroup, JSStringRef url, int startingLineNumber,
                                               JSStringRef source, JSStringRef *errorMessage, int *errorLine);
/// JSScriptRefPrivate.h: releases a script (takes its VM's lock).
JS_EXPORT void JSScriptRelease(JSScriptRef script);
/// JSScriptRefPrivate.h: evaluates `script` in `ctx` (a context of the script's group) with
/// `thisValue` (the global object when NULL); NULL when it throws (`exception` receives it).
JS_EXPORT JSValueRef JSScriptEvaluate(JSContextRef ctx, JSScriptRef script, JSValueRef thisValue, JSValueRef *exception);

/// JSBasePrivate.h: makes the VMs created from now on without their garbage-collection
/// activity timers (the full and eden collections JavaScriptCore would start from its run loop).
JS_EXPORT void JSDisableGCTimer(void);

/*
 * GLib's main context, through which JavaScriptCore runs its deferred work (WebAssembly's
 * asynchronous compilation, FinalizationRegistry callbacks) and its incremental sweeper: a VM
 * made on a thread keeps that thread's run loop, whose GLib context is the thread-default one
 * when the VM is made. Declared here under names of their own (libglib-2.0, linked through
 * JavaScriptCore's pkg-config), so that the engine neither imports all of <glib.h> nor clashes
 * with the WebKit module's GLib types; the symbols and signatures are GLib's. SBPollFD is GLib's
 * GPollFD, which on Linux is `struct pollfd`: an int and two shorts.
 */
typedef struct SBPollFD { int fd; unsigned short events; unsigned short revents; } SBPollFD;
extern void *sb_g_main_context_new(void) __asm__("g_main_context_new");
extern void sb_g_main_context_unref(void *context) __asm__("g_main_context_unref");
extern void sb_g_main_context_push_thread_default(void *context) __asm__("g_main_context_push_thread_default");
extern void sb_g_main_context_pop_thread_default(void *context) __asm__("g_main_context_pop_thread_default");
extern int sb_g_main_context_acquire(void *context) __asm__("g_main_context_acquire");
extern void sb_g_main_context_release(void *context) __asm__("g_main_context_release");
extern int sb_g_main_context_prepare(void *context, int *priority) __asm__("g_main_context_prepare");
extern int sb_g_main_context_query(void *context, int max_priority, int *timeout, SBPollFD *fds, int n_fds)
    __asm__("g_main_context_query");
extern int sb_g_main_context_check(void *context, int max_priority, SBPollFD *fds, int n_fds)
    __asm__("g_main_context_check");
extern void sb_g_main_context_dispatch(void *context) __asm__("g_main_context_dispatch");
extern void sb_g_main_context_wakeup(void *context) __asm__("g_main_context_wakeup");

/*
 * Declared in <jsc/JSCOptions.h>, which needs GLib's headers (gboolean and gint are int): read a
 * JavaScriptCore option. Returns nonzero if the option exists. Reading is safe at any time;
 * setting (not declared here) is not once a VM exists.
 */
extern int jsc_options_get_int(const char *option, int *value);
extern int jsc_options_get_boolean(const char *option, int *value);

/*
 * glibc's <pthread.h> declares this only under _GNU_SOURCE, which Swift's C modules do not set:
 * names a thread in the OS (at most 15 bytes), for engine threads.
 */
extern int pthread_setname_np(pthread_t thread, const char *name);

/*
 * The same for ppoll (its `struct pollfd` given as SBPollFD, the same layout): a poll whose
 * timeout has nanoseconds, for an engine thread that waits for its next timer and GLib's
 * sources at once.
 */
extern int sb_ppoll(SBPollFD *fds, unsigned long nfds, const struct timespec *timeout, const void *sigmask)
    __asm__("ppoll");

#ifdef __cplusplus
}
#endif

#endif
