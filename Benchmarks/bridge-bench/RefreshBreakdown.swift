#if canImport(SessionBridgeTesting) && canImport(AsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import NIOCore
import SessionBridgeTesting
import SessionBridge
import SessionBridgeHeadless

/// Where figure 6's cycle goes: each step of the full cycle timed on its own, in one fixture,
/// interleaved cycle by cycle so that machine noise hits every step alike.
///
/// What the runs found (release, 2 cores, loopback; a temporary probe that timestamps each
/// stage of the one-caller cycle, medians over 150 cycles on a loaded machine whose bare `POST`
/// took 0.75 ms and bare `GET /app` 0.65-0.9 ms):
/// - The cycle is waits, not work: during figure 6 the process uses less than half of one core.
///   A hop between threads (page thread, concurrency pool, event loop) costs 50-70 µs here.
/// - The page's half, 1.9-2.0 ms: into the page's thread 50-70 µs; the page's script up to
///   `postMessage` in a fresh document 80-160 µs; the body read and the handler started 25-50
///   µs; to the session's actor 55-70 µs; the join and the request built 30 µs; the token
///   request 1.0-1.1 ms (the bare `POST` 0.75 ms); its answer read and checked 60-70 µs; the
///   rotated token stored and the cookies written into both stores 50-60 µs; back to the page's
///   thread 55-65 µs; the promise chain to `callAsyncJavaScript`'s return and back to the caller
///   180 µs.
/// - The navigation, 2.1 ms: the session's navigation policy 60 µs (a hop there and back); the
///   request 1.0 ms, and 50 µs to hear of it on the page's thread; the old document closed and
///   the page APIs and bridge installed 200-270 µs (closing 15-65, the bridge 70, the native
///   functions 30, `location` 30); the user scripts at document start 150 µs; the document's
///   two scripts 520 µs (the second calls `fetch`: 215 µs of JavaScript before the native call,
///   run for the first time in the new global object); `DOMContentLoaded` and `load` 70 µs;
///   back to the caller 55 µs.
/// - Fixed since: the next document's contexts were made by `ScriptContext`'s async initializer,
///   which runs on the concurrency pool until the actor is initialized (200 µs waiting for a pool
///   thread, then 0.4-0.5 ms making the global object away from the page's thread), 1.2-1.4 ms in
///   all, longer than the request; they are now made on the page's thread, and made ahead: the
///   page prewarms its next document once a navigation has returned. The response policy and
///   `didFinish` each hopped to the pool and back (a delegate that only answers now runs on the
///   page's thread). The HTML was tokenized twice (60-80 µs). The token request waited for a pool
///   thread to start its task (40 µs) and for a sleeping child task to wake from cancellation.
/// - JavaScriptCore's own cost of a fresh global object: with the raw C API, a small script
///   evaluated in a new context takes 120-130 µs the first time and 50 µs the second time; a new
///   context takes 170-300 µs to make. Every document pays this, in a browser too.
/// - A hundred callers (a later probe, marks on the page's thread, 60 cycles): each call costs
///   the page's thread about 10 µs to make — 3 µs of the page's own loop between calls (a fresh
///   document's code runs in the interpreter), 3 µs reading the body (a new document reads its
///   first objects through the C API), 2 µs starting the handler's task, the rest the checks —
///   and about 10 µs to settle: 1.5 µs to record it in the log, 1.7 µs to make the reply object
///   in a fresh global, 2 µs to resolve the promise and 3 µs for the microtasks that run (the
///   page's `Promise.all`), 2 µs to the next handler's job. With the refresh on the other core
///   and the event loop's threads busy, the hundred posts take 2.3 ms of wall time and the
///   refresh often ends before the last is made. Sharing one turn of the session's actor among
///   the callers (a tried change) left the 100-caller cycle where it was (6.9-7.5 ms in four
///   interleaved runs each): the actor's turns are not the cost, the page's thread is.
/// - Later (every stage probed again, 150-200 cycles, medians): a continuation resumed, or a
///   task's value delivered, wakes its task on the concurrency pool, which then hops to the
///   page's thread: two hops, and a wait for a pool thread, which JavaScriptCore's compiler thread
///   (a quarter of the CPU during the hundred-caller cycle, compiling each fresh document's hot
///   code again) and a hundred other waiters keep busy. With a hundred callers, 900 µs passed
///   between the page's promise settling and `callAsyncJavaScript` resuming; in every navigation,
///   135 µs between the response and the page hearing of it. Fixed: the engine thread is also a
///   task executor and those waits prefer it (8 µs and 34 µs since); a page caller joins a
///   refresh in flight without a turn of the session's actor.
/// - Where a one-caller cycle goes now (3.3-3.7 ms; baseline 1.4-1.6 ms): into the page and to
///   the session's actor 185-195 µs; the token request built 28 µs; its head 845-880 µs and its
///   body 30-50 µs (the bare `POST`, whole: 750-830 µs); the answer checked and parsed 50 µs (once
///   per cycle, cold: `JSONSerialization` takes 3 µs on the same body in a loop); the rotated
///   token stored and the cookies written 50-60 µs; the reply settled and back to the caller 210
///   µs. The navigation: its policy 100-115 µs; the request 1.0 ms; the old document closed 12-16
///   µs; the page APIs installed 140 µs (the bridge's `window.webkit.messageHandlers` 74, the
///   native functions 33, `location` 26); the two user scripts 120 µs; the document's two scripts
///   290 µs (the second calls `fetch`); the `load` events 60-80 µs; back to the caller 140 µs and
///   more, as the next document is prewarmed on the page's thread meanwhile and the caller waits
///   for a core.
/// - Left: the hops into and out of the page (four per cycle: the app's tasks run elsewhere) and
///   to the session's actor; building the bridge and the native functions with the next
///   document's contexts, ahead (100 µs a navigation; the handler set can change in between);
///   the rest is the server, the network and first runs of the document's JavaScript in a fresh
///   global object, in a browser too.
/// - Later still: the baseline ran its requests back to back, with every thread awake, while
///   each cycle first waits 6 ms (and each step here now does too): measured after the same
///   gap, the bare POST and GET took 0.2 ms more, which the cycle's excess had counted. The page
///   `/app` runs a `fetch` of its own; the cycle to the page without its scripts
///   (`/app?plain=1`) is 0.4-0.7 ms shorter. The navigation policy's turn of the session's actor
///   (a hop there and back, a look at the vault, the two stores' cookies compared) is skipped
///   when a turn could only allow the navigation: the one-caller cycle's excess 1.97-2.70 →
///   1.66-2.06 ms to `/app`, 1.02-1.97 → 0.42-1.07 ms to the page without its scripts, in
///   alternating runs.
/// - Later (perf over 400 cycles of 100 callers, `BRIDGE_BENCH_CALLERS=100`, and
///   `JSC_reportDFGCompileTimes`): a quarter of the samples were JavaScriptCore's compiler
///   thread. Every cycle its optimizing compiler (DFG) compiled eleven promise built-ins that
///   the hundred calls and the page's `Promise.all` run a hundred times each in a fresh global
///   object: 4.5 ms of compilation per document, dropped with it. With the optimizing threshold
///   at 20,000 execution counts instead of 1,000 (`JavaScriptCoreSettings`), the 100-caller cycle
///   went from 6.5-8.7 to 5.3-6.3 ms in alternating runs; one caller compiles nothing. What is
///   left of a hundred callers is spread thin on the page's thread (about 11 µs a caller: the
///   body read, the deferred promise, the handler's task and its job, the log, the settle, the
///   page's own loop): no single item above a tenth of it.
/// - The bridge and the page APIs' native functions are made with the prewarmed document and
///   bound to the document at commit: the commit's installation went from 198-235 µs to
///   121-135 µs (the bridge ahead) and to 76-92 µs (the native functions too), 600 navigations.
/// - After a 6 ms idle gap, a no-op `evaluate` into the page costs 147-175 µs against 47-53 µs
///   back to back, and `callAsyncJavaScript("return 1")` 249-279 µs against 78-101 µs: waking
///   idle threads on this VM, and code run cold. Neither the await's 30 s timer nor its
///   task-executor preference was the cause (both removed in a probe: no change).
/// - Later still (a temporary probe marking each stage of `navigate` and `commit`, 525
///   navigations to `/app` and 375 to `/app?plain=1` in two `--filter figure6` runs, medians):
///   the policy 87-96 µs; the request 1.0-1.1 ms; the response policy 20 µs; the old document
///   closed and the prepared one installed 200-225 µs; the two user scripts at document start
///   230 µs (the first, `session-refresh.js`, 95-240 µs inside `JSEvaluateScript`, against
///   30-60 µs for the same source in a fresh context in a loop, in C and through
///   `ScriptContext` alike: run cold, between the request's threads); `/app`'s two scripts 83
///   and 377 µs (the second starts the page's `fetch`); `DOMContentLoaded` and `load` 85 µs;
///   `didFinish` 9 µs. `navigate` itself takes 2.2 ms to `/app` and 1.7 ms to the page without
///   its scripts; the step above measures 2.5-3.3 ms, the rest being the hops into the page's
///   thread, asleep after the idle gap, and back to the caller. A probe also found that, without
///   a time limit, a source JavaScriptCore has not seen costs 225 µs to evaluate in a fresh
///   context and a seen one 55 µs, while with the pages' 10 s limit both cost 60 µs.
/// - Later again (this table's stop): the refresh itself, stage by stage (a probe in
///   `refreshUnderVaultLock`, means over 200 one-caller cycles): the vault's lock, load and
///   store 1-2 µs each (the fixture's in-memory vault), the token request 1.28-1.36 ms (the bare
///   `POST`, median, 1.34 ms in the same run), the `Set-Cookie` lines written into both stores
///   72-77 µs, the web-session exchange check 3 µs: the native refresh is its request. The
///   refresh's task waited 9-12 µs to start after the actor's turn made it (not worth an
///   immediate start inside the actor, which would run the refresh before `inFlight` is set).
///   The session's handler in WebKit's reply-handler form (a caller joining a refresh in flight
///   leaves its reply in a list the refresh answers when it ends: no task, no continuation per
///   caller) was built as a probe and measured in alternating runs: 100 callers 6.2 and 6.5 ms
///   before, 6.1 and 6.5 ms with it. Not kept: the callers' tasks are not the cost. A profile of
///   the 100-caller cycle (perf, 400 cycles) puts half of the page's thread in JavaScriptCore
///   (a fresh document's code interpreted: the page's loop and promises, the body reader, the
///   replies' objects), a quarter in the bridge's Swift (reference counts, allocation), an
///   eighth in the kernel. The two user scripts at document start take 240-340 µs of each
///   navigation (a probe, means over 200); touching in the prewarmed document the built-ins they
///   use (`Object.defineProperty`, `Object.freeze`, `Promise`, `Error`, `fetch`, `JSON`), which
///   the page could not observe, left them at 265-270 µs: their cost is running cold, not the
///   global object's lazily made built-ins.
/// - Later (the cycle with the page navigating itself, `location.assign` after its reply, a
///   temporary probe marking each stage, 200 cycles, medians): the page's call to its reply
///   1.64-1.72 ms (the bare `POST` 1.6 ms); from the reply to the navigation policy 300-360 µs,
///   of which 148 µs were the policy: `navigationPolicyWithoutATurn` was a plain `nonisolated
///   async` function, which runs on the concurrency pool (a hop there and back for a decision
///   that reads two locks and the page's cookies); it is `nonisolated(nonsending)` now and runs
///   on the page's thread, 33 µs. `location.assign` started the navigation's task on the pool,
///   which then hopped to the page (48 µs between the call and the task since it is queued on
///   the page's thread; 65 µs less to the policy). At commit, the HTML was tokenized in 80 µs
///   cold (31 µs warm for the 1.5 KB `/app`): the script data state compared text at every
///   byte; it now skips every byte but `<` and `-` (43 µs cold, 8 µs warm). The commit gave each
///   world's context its event handler through a `nonisolated` static async function, a pool
///   hop (32 → 1 µs); and added the location record's ten members to a new object (56 µs; 38 µs
///   now that the members are made with the prepared document and commit only sets them). What
///   is left after the response, 210-330 µs to the committed document and 480-950 µs to `load`,
///   is running a fresh document's first JavaScript cold: the two user scripts 226 and 93 µs,
///   `/app`'s scripts 86 and 491 µs (184 µs of JavaScript before its `fetch` reaches native code,
///   97 µs inside, 222 µs after), the load events 97 µs. JavaScriptCore's collections are rare
///   (five in 220 cycles) but each pauses the page 4-5 ms: the p99 rows. The page-driven rows of
///   figure 6 print these stages from the page's events and the message log.
/// - Later (the cycle with a `FileTokenVault` and a `PersistentCookieStore`, strace): four
///   `fsync`s a cycle, 0.37 ms each (median), in two durable writes, the token's and the cookie
///   profile's, one after the other on the refresh's path; the profile's write is the longer (it
///   reads the current generation and keeps a backup link). Writing the token beside the
///   profile took the cycle from 6.31-6.70 to 5.57-6.38 ms; answering the callers before the
///   profile's write (which then finishes behind them, under the vault's lock) to 5.27-6.26 ms
///   (alternating runs of the three builds). In later alternating runs, the cycle with the file
///   vault alone took 4.86-5.08 ms, with both files 5.11-5.57 ms, in memory 3.60-3.94 ms: the
///   token's write (0.8-0.95 ms, the one a refresh needs) and the vault's lock and read are
///   what the files add on the path; the profile's write behind it costs 0.3-0.5 ms of the
///   machine's two cores.
/// - Later (the standard scripts run ahead, in the document prepared before the response): a
///   probe of the commit (300 one-caller cycles, medians) then read: the old document closed 19
///   µs, the worlds installed 85 µs, the user scripts at document start 1.5 µs (both ran ahead),
///   `/app`'s scripts 398 µs, the load events 65 µs. The page-driven cycle's "committed to
///   loaded" stage went from 719 to 568 µs in one run of figure 6 for each build, less than the
///   two scripts had cost at commit (226 and 93 µs): the first JavaScript a fresh global object
///   runs pays for its coldness, and that is now the page's own scripts. Of the worlds'
///   installation (61 µs in a finer probe, 300 cycles): the bridge bound to the frame 17 µs, the
///   location's ten strings made from the URL 9 µs, and set on the record made ahead 28 µs
///   (2.8 µs a member, cold). Filling the record when a script first reads `location` would
///   take the last two off navigations whose scripts never read it; done later (below).
/// - Later (temporary probes marking every step of the page-driven cycle, 400 cycles, medians;
///   the machine's speed moved by a third between runs, so each figure is within its run):
///   - A fresh global object's first calls are slow less for linking their code than for its
///     property caches: the load events' dispatch took 73 µs at every commit, and 25 µs once the
///     prepared document had dispatched an event of its own type on the same `document` and
///     `window` (a throwaway target with the same functions did nothing). The prepared
///     document now runs the fetch APIs and that dispatch once (the prelude's `warmUp`): the
///     page-driven cycle's "committed to loaded" 441-735 (median about 500) to 333-480 µs
///     (median about 380) in alternating runs. Filling the location record through one call
///     into JavaScript, its caches warmed the same way, took 33 µs against the C API's 28 µs:
///     not kept; the record is now filled when a script first reads it (`native.locate`).
///   - After the response: to the page's thread 10-50 µs, the response policy 4 µs, its body
///     decoded 12-16 µs, the HTML tokenized 35-40 µs (cold), the old document closed 25-48 µs
///     (its close handlers 12 µs, the rest its objects freed), the worlds installed 40-65 µs
///     (the bridge bound 16 µs), the document's two scripts 75-240 µs each, the load events
///     25 µs (73 before the warm-up).
///   - From `location.assign` to the request: the navigation's job 30-40 µs (it runs after the
///     script's job, whose end resumes the app's `callAsyncJavaScript` first), the policy 31-37
///     µs, the task group and its pool task 36-42 µs, the pool thread waking 30-40 µs. The
///     request's own code up to its first wait (the cookie header, AsyncHTTPClient's `execute`)
///     then took 115-210 µs, cold; of it, the names of the cookies sent, read back from the
///     header with Foundation's `trimmingCharacters`, 44 µs: now the cookies' own names (4 µs).
///     Running the request on the page's thread (the task group child inheriting its executor)
///     took the pool's two wake-ups off (the response reached the page in 11 µs instead of
///     25-50) but "committed to loaded" grew by as much, and the cycle measured the same: not
///     kept.
///   - The refresh, from the page's `postMessage`: to the session's actor 54-84 µs (a pool
///     thread's wake-up), the refresh's task started 9-13 µs, the vault's lock and read 4-5 µs
///     (in memory), the token request built 31-55 µs (its form encoded a string per escaped
///     byte: 22 µs, now 6), AsyncHTTPClient's request and answer 1.0-1.4 ms (the bare POST's
///     share), the DPoP nonce check 10-12 µs (now skipped without a DPoP key), the answer
///     parsed 48-61 µs (`JSONSerialization`, cold), the cookies into the native jar 28 µs, the
///     pages' stores 20 µs and a filter 9 µs, back to the page's thread 56-78 µs.
///   - With a `FileTokenVault` and a `PersistentCookieStore`, the refresh stage grows by the
///     token's `fsync`ed write (0.85-1 ms, the one a refresh needs), and the navigation's
///     request by 150-250 µs: the cookie profile's write behind runs on the writer thread
///     meanwhile, on a machine of two cores. Lowering that thread's priority for the write
///     measured nothing clear in three alternating pairs; not kept.
/// - Later (the baseline's own timing): the rows' baseline was measured once, before them, and
///   the machine's speed moves by a third between minutes, so that the same code read +0.41
///   and +1.23 ms over the baseline in two full runs minutes apart. Bare cycles now run on each
///   row's own server in five blocks between five blocks of the row's cycles
///   (`StandInCycles`); the page-driven cycle from its ask then read +1.15 and +1.12 ms in two
///   runs. Interleaving cycle by cycle made the row's cycles 0.3-1 ms slower (two pairs of runs):
///   after a bare cycle's work the page ran cold.
/// - Tried and not kept: a `SessionController` whose actor runs on its page's engine thread
///   (as a `WKWebView` app's session would be `@MainActor`), to spare the refresh's two hops
///   through the concurrency pool: the page's wait for its refresh went from 1,344-1,448 to
///   1,486-1,662 µs in three alternating pairs (the response then wakes the page's thread,
///   and the refresh's every step shares it with the page). The engine threads' poll before
///   sleeping at 0, 10 or 50 µs changed nothing clear (1,322-1,625 µs for that stage).
/// - Later (wake-ups; perf's `sched:sched_wakeup` with stacks, a `swift_task_switch` uprobe, and
///   temporary probes around single calls, page-driven one-caller cycle, 400 cycles):
///   - On this VM a thread that wakes another pays for it in the kernel: 25-35 µs after the
///     6 ms idle gap, 55-100 µs after a 30 ms one (a `Task` made on the pool from inside the
///     page's `fetch`, timed alone: no page faults, no context switch, the time inside
///     `try_to_wake_up`). The whole cycle got slower with the longer gap (2.6 → 3.4 ms from the
///     page's ask), its baseline too.
///   - The page's thread woke pool threads 2.45 and 1.51 times a cycle (two runs). Two of the
///     wakes were not the page's: its `fetch` settled through an `await` on the context, whose
///     return went back to the pool (the page paid that wake) and came back to mark the task
///     finished; and the bench's `callAsyncJavaScript` returned to a task on the pool before the
///     page's navigation job ran. Both are gone (a task inbox per context; the page-driven rows
///     are started from the page's actor): the page's switches to the pool executor went from 4
///     to 2 a cycle (the uprobe; the two left go to its own task executor, no wake), its wakes of
///     pool threads to 1.16 and 1.30 a cycle. The stage times moved within the machine's noise.
///   - Counted for the whole process, the cycle puts threads to sleep no more often than the
///     bare cycles between its blocks: 37.2 against 36.4, 36.9 against 35.0 (figure 6's new row;
///     most are AsyncHTTPClient's and the in-process server's hand-offs between the pool and
///     the event loops, which the bare cycle makes too). Its CPU time per cycle, all threads, is
///     twice the bare one's (8.7 against 4.4 ms): the cycle's excess is work more than waits.
///   - An event loop as the HTTP exchanges' task executor (so that AsyncHTTPClient's deadline
///     timer, the pool's connection and the response's resumption would share a thread) left
///     the wake-ups per cycle where they were (20.7 and 23.2 against 20.9 and 20.3): the
///     in-process server's connection lives on the other loop. NIO's loops installed as the
///     whole process's global executor made the cycle slower (2.8-3.1 against 2.6-2.8 ms from
///     the page's ask, three alternating pairs). Neither was kept.
///   - Of that work, the page's thread spends 2.1-2.4 ms a navigation prewarming the next
///     document, after the navigation returned: the global object and the engine's set-up 0.73
///     ms, the prelude with its warm-up 1.33 ms, the bridge 0.09 ms, the scripts run ahead 0.12
///     ms; off the cycle's path, in its idle gap. The commit, response to `load`, takes 0.45-0.5
///     ms: the HTML tokenized 23-33 µs, the old document closed 35-55 µs, the worlds installed
///     23-36 µs, `/app`'s first script 55-95 µs and its second 60-110 µs (of which 80-118 µs of
///     its JavaScript before the native `fetch`, and 55 µs inside it: 10 reading its arguments,
///     9 its URL and rules, 15 the request and its promise, 27 its task made on the pool: the
///     wake above), the load events 22-40 µs.
///   - The preparation of the next document now waits for the page to go quiet (and then yields
///     once): `/app`'s own fetch of `/api/me`, which had waited behind it and competed with it for
///     the two cores, went from 1.33-1.43 to 0.66-0.71 ms, and `load` to the page quiet from
///     2.45-3.14 to 1.11-1.15 ms (three alternating pairs; the cycle's stages before `load`
///     unchanged). The old document's global object is released in the job after the commit:
///     response to committed 206-220 → 187-220 µs (four pairs).
///   - With a hundred callers posting (`BRIDGE_BENCH_CALLERS=100`, the stages "with several
///     callers"): the calls' making took 1.48 ms and their replies' settling 1.16 ms, about 15
///     and 12 µs a caller on the page's thread, while the refresh itself answered after 1.0-1.3
///     ms, hidden under the making. Callers that join a refresh in flight now leave their reply
///     with it (`RefreshWaiters`, no task each) and are settled in one job of the page's reply
///     inbox: making 1.48 → 1.31 ms, settling 1.16 → 0.90 ms (six alternating pairs; five with
///     the order reversed: 1.78 → 1.66 and 1.34 → 1.04 ms). What is left is each call's own work
///     in a fresh document, its scripts in JavaScriptCore's interpreter: 13 and 9 µs, against
///     4-6 µs for the same round trip in figure 3's warm document.
///   - Each outermost entry into JavaScript under the pages' time limit reads the thread's CPU
///     time (JavaScriptCore's watchdog), a system call of about 0.7 µs here: 36 a cycle with one
///     caller, 172 with a hundred (perf, `syscalls:sys_enter_clock_gettime`). A settle took two
///     entries (the `resolve`, then the checkpoint) and now takes one: about 172 → 109 a cycle
///     with a hundred callers, their settling 757-908 → 627-839 µs (four alternating pairs).
///   - Of the calls' making (perf with DWARF stacks, 100 callers): `post` took 14% of the page's
///     thread, 40% of it reading the bodies, because the 65th object a context read made its
///     value walker (about 90 µs to parse into the new global object) and the walker then ran
///     interpreted, slower than the C API's part-by-part reads of `{action: "refresh"}`. The
///     switch now comes after 2,048 values read part by part: the making 1.49-1.74 → 1.12-1.40
///     ms (ten alternating runs each, the new code's from a probe that never made the walker
///     and from the final build). The rest of `post`: the deferred promise (its
///     resolve and reject protected, 2.2%), the session's handler (2.1%), the call's entry and
///     deadline (1.6%). Of the settling (`finish`, 5.6%): the message log's record 2.1% (half
///     of it the bench's own observer and the evicted record's release), the settle 2.2% (the
///     reply's object made, the checkpoint's call, the two unprotects).
///   - What an idle gap costs code on this VM, timed alone (a separate program, medians of 200):
///     parsing a token endpoint's 300-byte answer took 5-7 µs back to back with
///     `JSONSerialization` and 7-9 µs with `JSONDecoder`, and 66-73 µs for either when each
///     parse followed a 6 ms sleep. The cycle's every step pays that on its first touch of its
///     code and data, the bare cycle's too: what the cycle runs beyond the bare one costs it
///     about ten times its warm time, so fewer steps, not faster ones, is what shortens it.
///   - The p99 rows (25.6 ms against the bare cycle's 4.0 ms in one full run): JavaScriptCore's
///     `logGC` option over one 440-cycle run of the page-driven one-caller row counted six
///     collections in all, each started by allocation, mid-cycle: the heap reached 7, 37 and 86
///     MB before them, and their pauses ran 2-16 ms for the smaller and 13, 24 and 52 ms for the
///     last two. In WebKit the collector's activity timers collect while the page is idle; here
///     they never run, because JavaScriptCore attaches them to the main context of the thread
///     that made the VM, which nobody iterates. A probe made each engine thread's VM on the
///     thread, under a GLib main context of its own that the thread ran when idle: the first
///     full-collection timer then crashed the process (`FullGCActivityCallback::doCollection`
///     reaches `MemoryPressureHandler::singleton()`, which a host thread cannot make). Not kept;
///     collecting in idle time needs a policy of our own (the private synchronous collections),
///     which would trade idle CPU, on a machine of two cores, for these pauses.
///   - Why the heap grew so (a probe counting global objects after a full collection): no closed
///     document was ever collected. JavaScriptCore holds a global object's unhandled-rejection
///     callback in a strong handle, and each context's was its own function, which rooted it.
///     Set to a function of the VM's own as the context is released (`EngineThread`'s rejection
///     sink), the same run collected 25 times, the heap between 5 and 9 MB, with pauses up to
///     2.9 ms (48 ms before), and a hundred callers' p99 went from 27.8 to 8.4 ms.
/// - Later (perf with DWARF unwinding over 400 one-caller cycles, per thread): the page's thread
///   used about 7 ms of CPU per cycle (the server's event loops 1.3 ms), a third of it preparing
///   the next document after the navigation returned, off the cycle's path; of that, converting
///   the engine's own preludes from UTF-8 and hashing them for the code cache at every
///   evaluation was about 7% of the thread's CPU. The preludes are now `ScriptSource`s, parsed
///   once per VM (conversion and hash: 0.72% and 0.67% of all samples before, 0.06% and 0.07%
///   after). The clock reads of the engine threads' 50 µs poll before sleeping were another 3%.
enum RefreshBreakdown {
    struct Steps {
        var names: [String]
        var medians: [Double]
    }

    static func measure(cycles: Int) async throws -> Steps {
        let fixture = try await SessionFixture.start(session: { $0.freshnessWindow = .milliseconds(5) })
        return try await RefreshBenchmarks.using(fixture) { fixture in
            try await fixture.page.loadHTMLString("<p>bench</p>", baseURL: fixture.url("/bench"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            defer { _ = client.shutdown() }
            let appURL = fixture.url("/app").absoluteString
            let steps: [(String, () async throws -> Void)] = [
                ("page entry: callAsyncJavaScript(\"return 1\")", { _ = try await fixture.page.callAsyncJavaScript("return 1") }),
                (
                    "page asks, native refresh, cookies written, reply",
                    {
                        _ = try await fixture.page.callAsyncJavaScript(
                            "return await window.webkit.messageHandlers.session.postMessage({action: \"refresh\"})")
                    }
                ),
                ("native refresh alone (SessionController.refresh)", { _ = try await fixture.session.refresh() }),
                ("navigation to /app, session fresh (no refresh)", { _ = try await fixture.page.load(fixture.url("/app")) }),
                (
                    "navigation to /app?plain=1 (the page without its scripts), session fresh",
                    { _ = try await fixture.page.load(fixture.url("/app?plain=1")) }
                ),
                (
                    "bare GET /app with AsyncHTTPClient (no cookie: 302)",
                    {
                        let response = try await client.execute(HTTPClientRequest(url: appURL), timeout: .seconds(10))
                        _ = try await response.body.collect(upTo: 1 << 20)
                    }
                ),
            ]
            var samples = Array(repeating: [Double](), count: steps.count)
            let clock = ContinuousClock()
            for cycle in 0..<(cycles + cycles / 10) {
                for (index, step) in steps.enumerated() {
                    // Past the freshness window (steps 1 and 2 refresh), and past the prewarming of
                    // the next document that a navigation starts on the page's thread (about 1 ms of
                    // work, which the step after a navigation would otherwise share a core with).
                    try await Task.sleep(for: .milliseconds(6))
                    let start = clock.now
                    try await step.1()
                    if cycle >= cycles / 10 { samples[index].append((clock.now - start).nanoseconds) }
                }
            }
            return Steps(names: steps.map(\.0), medians: samples.map(Stats.median))
        }
    }
}
#endif
