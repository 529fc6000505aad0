#ifndef SESSIONBRIDGE_CWEBKITBASELINE_H
#define SESSIONBRIDGE_CWEBKITBASELINE_H
/// The raw WebKitGTK baseline: a page -> native -> page round trip with no Swift layer.

#include <webkit2/webkit2.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Called once with the mean time of one round trip as the page measured it (ns), or ok = 0.
typedef void (*cb_webkit_done)(double nanoseconds_per_round_trip, int ok, void *data);

/// Starts the bench on the GLib main-loop thread (it must own the default main context): a
/// view in `context` whose handler `bench` (with reply) answers each message at once with its
/// body; the page awaits `n` messages in a row and reports the mean through its title. `done`
/// runs on the same thread when the page finished; the view is destroyed before.
void cb_webkit_round_trip_start(WebKitWebContext *context, int n, cb_webkit_done done, void *data);

#ifdef __cplusplus
}
#endif

#endif
