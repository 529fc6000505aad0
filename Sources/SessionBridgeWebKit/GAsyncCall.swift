import CWebKitGTK
import Synchronization

/// A GLib pointer carried across a Swift isolation boundary.
///
/// `@unchecked Sendable` is safe because the pointer is only dereferenced by GLib, GTK or
/// WebKit calls made on ``WebKitMainLoop``'s thread: every use is `@WebKitActor`-isolated or
/// inside a GLib callback on that thread.
@safe  // its GLib pointers are used only on the WebKit main-loop thread, while their object lives
struct GPointer: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer

    init(_ raw: UnsafeMutableRawPointer) { unsafe self.raw = unsafe raw }
    init<T>(_ pointer: UnsafeMutablePointer<T>) { unsafe self.raw = UnsafeMutableRawPointer(pointer) }
    init(_ pointer: OpaquePointer) { unsafe self.raw = unsafe UnsafeMutableRawPointer(pointer) }

    func typed<T>(_ type: T.Type = T.self) -> UnsafeMutablePointer<T> { unsafe raw.assumingMemoryBound(to: T.self) }
    var opaque: OpaquePointer { unsafe OpaquePointer(raw) }
}

/// Casts a GObject-derived pointer to another GObject type (what `G_OBJECT()` and the
/// `WEBKIT_*()` macros do in C).
func gcast<T, U>(_ pointer: UnsafeMutablePointer<T>, to type: U.Type = U.self) -> UnsafeMutablePointer<U> {
    unsafe UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: U.self)
}

/// Resumes a continuation once: the first of a GLib callback and a timeout wins. An outcome
/// that arrives before the continuation is installed (a signal emitted while the operation
/// was being started) is kept, and the continuation resumes with it as soon as it is installed.
final class OneShot<T: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Result<T, WebKitError>, Never>)
        case finished(Result<T, WebKitError>)
        case delivered
    }

    private let state = Mutex<State>(.empty)

    func install(_ continuation: CheckedContinuation<Result<T, WebKitError>, Never>) {
        let early: Result<T, WebKitError>? = state.withLock { state in
            guard case .finished(let result) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .delivered
            return result
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Returns whether this call decided the outcome (the first one does).
    @discardableResult
    func resume(_ result: Result<T, WebKitError>) -> Bool {
        let (decided, waiting): (Bool, CheckedContinuation<Result<T, WebKitError>, Never>?) = state.withLock { state in
            switch state {
            case .empty:
                state = .finished(result)
                return (true, nil)
            case .waiting(let continuation):
                state = .delivered
                return (true, continuation)
            case .finished, .delivered:
                return (false, nil)
            }
        }
        waiting?.resume(returning: result)
        return decided
    }
}

/// The Swift side of one `GAsyncReadyCallback`: passed retained as the callback's user data.
@safe  // its GLib pointers are used only on the WebKit main-loop thread, while their object lives
@WebKitActor
final class ReadyCallback {
    let onReady: @WebKitActor (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Void

    init(_ onReady: @escaping @WebKitActor (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Void) {
        unsafe self.onReady = unsafe onReady
    }

    /// The C callback: takes the box back and runs it on the loop's thread, where GLib calls it.
    nonisolated static let trampoline: GAsyncReadyCallback = { source, result, data in
        guard let data = unsafe data else { return }
        let source = unsafe source.map(GPointer.init)
        let result = unsafe result.map(GPointer.init)
        let box = unsafe GPointer(data)
        WebKitActor.assumeIsolated {
            let callback = unsafe Unmanaged<ReadyCallback>.fromOpaque(box.raw).takeRetainedValue()
            unsafe callback.onReady(source?.typed(GObject.self), result?.opaque)
        }
    }
}

/// Runs one asynchronous GLib operation and waits for its callback, at most `timeout`; on
/// timeout the operation's `GCancellable` is cancelled and ``WebKitError/Code/timeout`` thrown.
///
/// - Parameters:
///   - what: names the operation in a timeout error.
///   - start: starts the operation with a cancellable, the C callback and its user data.
///   - finish: reads the outcome in the callback (`*_finish`); runs on the loop's thread.
@WebKitActor
func awaitReady<T: Sendable>(
    _ what: String, timeout: Duration,
    start: (UnsafeMutablePointer<GCancellable>, GAsyncReadyCallback, UnsafeMutableRawPointer) -> Void,
    finish: @escaping @WebKitActor (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Result<T, WebKitError>
) async throws(WebKitError) -> T {
    let cancellable = unsafe GPointer(g_cancellable_new()!)
    defer { unsafe g_object_unref(cancellable.raw) }
    let once = OneShot<T>()
    let timer = Task { @WebKitActor in
        guard (try? await Task.sleep(for: timeout)) != nil else { return }
        if once.resume(.failure(WebKitError(.timeout, "\(what) took longer than \(timeout)"))) {
            unsafe g_cancellable_cancel(cancellable.typed())
        }
    }
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, WebKitError>, Never>) in
        once.install(continuation)
        let callback = unsafe ReadyCallback { source, result in unsafe once.resume(finish(source, result)) }
        unsafe start(cancellable.typed(), ReadyCallback.trampoline, Unmanaged.passRetained(callback).toOpaque())
    }
    timer.cancel()
    return try result.get()
}

/// Takes a `GError` out: its message, and frees it.
func takeMessage(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error = unsafe error else { return "unknown error" }
    defer { unsafe g_error_free(error) }
    return unsafe error.pointee.message.map { unsafe String(cString: $0) } ?? "unknown error"
}
