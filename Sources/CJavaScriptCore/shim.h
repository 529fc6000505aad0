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

/// JSBasePrivate.h: a full, synchronous garbage collection (used by memory tests and benchmarks).
JS_EXPORT void JSSynchronousGarbageCollectForDebugging(JSContextRef ctx);

/// JSBasePrivate.h: an object describing the VM's heap (`heapSize`, `objectCount`,
/// `globalObjectCount`, `protectedGlobalObjectCount`, ...), for memory tests and benchmarks.
JS_EXPORT JSObjectRef JSGetMemoryUsageStatistics(JSContextRef ctx);

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

#ifdef __cplusplus
}
#endif

#endif
