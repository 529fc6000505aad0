#ifndef SESSIONBRIDGE_CBASELINES_H
#define SESSIONBRIDGE_CBASELINES_H
/// Baselines measured in the same run as SessionBridge: the raw JavaScriptCore C API with no
/// Swift layer, and libsoup's cookie parser.

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What the native `post` function of a raw JavaScriptCore bench does.
typedef enum {
    /// (a) makes a deferred promise and resolves it inline with its argument.
    CB_JS_SYNC = 0,
    /// (c) reads `action` and `id` of `{action, id, meta}` (2 gets) and resolves inline with a new
    /// `{ok: true, expiresAt: id}`.
    CB_JS_STRUCT = 1,
    /// (b) makes a deferred promise, protects `resolve` and hands it to a worker thread; the JS
    /// thread resolves it with the worker's reply (a number).
    CB_JS_HOP = 2,
    /// (b)+(c): the body is read in the callback, the worker computes `expiresAt`, and the JS
    /// thread resolves with a new `{ok: true, expiresAt}`.
    CB_JS_HOP_STRUCT = 3,
} cb_js_kind;

/// One global context (in its own group) with `post` installed and the page loop compiled.
typedef struct cb_js cb_js;

/// Opens a bench: installs `window.webkit.messageHandlers.h.postMessage` (the native `post`)
/// and `__done(sum)`, then evaluates `page_source`, which must define `__run(n, lanes)`.
/// For the hop kinds, `js_spin_ns` and `worker_spin_ns` are how long the JS thread
/// and the worker poll their queue before blocking on the condition variable (0: block at once).
cb_js *cb_js_open(cb_js_kind kind, const char *page_source, int64_t js_spin_ns, int64_t worker_spin_ns);

/// Runs `n` round trips of `s += await post(i)` as `lanes` concurrent async loops of `n / lanes`
/// calls each, timed around the whole run (for the inline kinds, one `JSEvaluateScript`; for
/// the hop kinds, until the last reply is awaited). Returns the elapsed nanoseconds; `*ok` is 1
/// when the sum of the replies is right.
int64_t cb_js_run(cb_js *bench, int64_t n, int lanes, int *ok);

/// Sets an execution time limit of `seconds` on the bench's context group, as a page's
/// context has (`JSContextGroupSetExecutionTimeLimit`, no callback): JavaScriptCore then
/// reads the thread's CPU time on every VM entry.
void cb_js_set_time_limit(cb_js *bench, double seconds);

/// Runs a full, synchronous garbage collection of the bench's VM.
void cb_js_collect_garbage(cb_js *bench);

/// Closes a bench (stops its worker, releases the context).
void cb_js_close(cb_js *bench);

/// Parses each of `count` `Set-Cookie` values with libsoup's `soup_cookie_parse` against the
/// origin `url`, `rounds` times over. Returns the elapsed nanoseconds; `*parsed` counts the
/// values that gave a cookie in one pass.
int64_t cb_soup_parse(const char *const *headers, int count, int rounds, const char *url, int *parsed);

/// Creates `count` further contexts in a new group (after a first one that creates the VM), each
/// with one native function and a 5-line bridge prelude, keeps them all alive, and returns the
/// growth of resident memory in bytes (each side measured after a full GC); `*elapsed_ns` is the time to create and prepare them.
/// Releases them before returning.
int64_t cb_js_contexts(int count, int64_t *elapsed_ns);

/// Resident memory of the process in bytes (from /proc/self/statm).
int64_t cb_resident_bytes(void);

/* Returns free allocator memory (JavaScriptCore's and glibc's) to the system; 1 when
 * JavaScriptCore's release function was found. */
int cb_release_free_memory(void);

/// A synchronous native call from JavaScript: `s += f(1)` where `f` returns its argument.
/// Returns the elapsed nanoseconds for `n` calls; `*ok` is 1 when the sum checks out.
int64_t cb_native_call(int64_t n, int *ok);

/// Evaluates `source` in a new context of a new group (with an execution time limit of
/// `time_limit` seconds when it is above 0) and returns its value, a number; `*ok` is 0 when it
/// threw or gave something else.
double cb_js_evaluate_number(const char *source, double time_limit, int *ok);

#ifdef __cplusplus
}
#endif

#endif
