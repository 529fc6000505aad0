import Synchronization

/// A document's open compression streams (``ZlibStream``), by the handle its
/// `CompressionStream` or `DecompressionStream` holds; attached to the document's context, so
/// that they go with it.
final class CompressionStreamTable: Sendable {
    /// The most streams a document may have open at once: each holds zlib's state, up to about
    /// 256 KB, until it ends, fails or is collected.
    static let limit = 1_000

    private let state = Mutex<(next: Int, streams: [Int: ZlibStream])>((1, [:]))

    /// Opens a stream and returns its handle.
    func open(_ format: ZlibStream.Format, compresses: Bool) throws(ZlibStream.Failure) -> Int {
        try state.withLock { state throws(ZlibStream.Failure) in
            guard state.streams.count < Self.limit else {
                throw ZlibStream.Failure(message: "Too many compression streams are open (\(Self.limit))")
            }
            let stream = try ZlibStream(format: format, compresses: compresses)
            let handle = state.next
            state.next += 1
            state.streams[handle] = stream
            return handle
        }
    }

    /// The output for `input` on the stream `handle`; a failure closes the stream.
    func push(_ handle: Int, _ input: [UInt8]) throws(ZlibStream.Failure) -> [UInt8] {
        try state.withLock { state throws(ZlibStream.Failure) in
            guard let stream = state.streams[handle] else { throw ZlibStream.Failure(message: "The stream is closed") }
            do throws(ZlibStream.Failure) {
                return try stream.push(input)
            } catch {
                state.streams[handle] = nil
                throw error
            }
        }
    }

    /// The stream's last output; the stream is closed.
    func finish(_ handle: Int) throws(ZlibStream.Failure) -> [UInt8] {
        try state.withLock { state throws(ZlibStream.Failure) in
            guard let stream = state.streams.removeValue(forKey: handle) else {
                throw ZlibStream.Failure(message: "The stream is closed")
            }
            return try stream.finish()
        }
    }

    /// Closes a stream that will not be finished (aborted, failed or collected).
    func close(_ handle: Int) {
        state.withLock { $0.streams[handle] = nil }
    }
}
