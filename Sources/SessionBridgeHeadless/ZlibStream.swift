import CZlib

/// One `CompressionStream` or `DecompressionStream` of a page: a zlib stream in one of the
/// Compression Streams standard's formats, fed a chunk at a time.
///
/// It is used on its page's thread only, through ``CompressionStreamTable``.
@safe  // its z_stream is allocated with it, used only by its methods (one at a time, under the table's lock) and freed by its deinit
final class ZlibStream {
    /// The standard's formats: gzip (RFC 1952), `deflate` (the zlib format, RFC 1950) and
    /// `deflate-raw` (RFC 1951).
    enum Format: String {
        case gzip
        case deflate
        case deflateRaw = "deflate-raw"

        /// zlib's window bits for the format: 15, with 16 added for gzip and negated for raw.
        var windowBits: Int32 {
            switch self {
            case .gzip: 16 + 15
            case .deflate: 15
            case .deflateRaw: -15
            }
        }
    }

    /// Why a chunk could not be read (the page gets a `TypeError` with this message).
    struct Failure: Error {
        let message: String
    }

    /// How many bytes of output each step of zlib is given.
    private static let outputStep = 16 << 10

    let compresses: Bool
    /// Whether a decompressed stream has read its end.
    private(set) var ended = false
    private let stream: UnsafeMutablePointer<z_stream>

    init(format: Format, compresses: Bool) throws(Failure) {
        self.compresses = compresses
        unsafe stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        unsafe stream.initialize(to: z_stream())
        let status =
            compresses
            ? unsafe sb_deflate_init2(stream, Z_DEFAULT_COMPRESSION, format.windowBits)
            : unsafe sb_inflate_init2(stream, format.windowBits)
        guard status == Z_OK else {
            unsafe stream.deinitialize(count: 1)
            unsafe stream.deallocate()
            throw Failure(message: "The compression stream could not be made")
        }
    }

    deinit {
        if compresses { unsafe deflateEnd(stream) } else { unsafe inflateEnd(stream) }
        unsafe stream.deinitialize(count: 1)
        unsafe stream.deallocate()
    }

    /// The output for `input`, the next bytes of the stream.
    func push(_ input: [UInt8]) throws(Failure) -> [UInt8] {
        guard !input.isEmpty else { return [] }
        if ended { throw Failure(message: "Trailing bytes after the end of the compressed stream") }
        return try run(input, finishing: false)
    }

    /// What is left to output once the input has ended; a decompressed stream must have read its
    /// end by then.
    func finish() throws(Failure) -> [UInt8] {
        if compresses { return try run([], finishing: true) }
        if !ended { throw Failure(message: "The compressed stream ended early") }
        return []
    }

    private func run(_ input: [UInt8], finishing: Bool) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        var input = input
        // zlib writes each step into one buffer, whose bytes are then appended in one copy.
        let step = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.outputStep)
        defer { unsafe step.deallocate() }
        let result: Result<Void, Failure> = unsafe input.withUnsafeMutableBufferPointer { source in
            unsafe stream.pointee.next_in = source.baseAddress
            unsafe stream.pointee.avail_in = UInt32(source.count)
            defer {
                unsafe stream.pointee.next_in = nil
                unsafe stream.pointee.avail_in = 0
            }
            while true {
                unsafe stream.pointee.next_out = step
                unsafe stream.pointee.avail_out = UInt32(Self.outputStep)
                let status =
                    compresses
                    ? unsafe deflate(stream, finishing ? Z_FINISH : Z_NO_FLUSH)
                    : unsafe inflate(stream, Z_NO_FLUSH)
                let room = Int(unsafe stream.pointee.avail_out)
                unsafe output.append(contentsOf: UnsafeBufferPointer(start: step, count: Self.outputStep - room))
                switch status {
                case Z_STREAM_END:
                    if !compresses {
                        ended = true
                        if unsafe stream.pointee.avail_in > 0 {
                            return .failure(Failure(message: "Trailing bytes after the end of the compressed stream"))
                        }
                    }
                    return .success(())
                case Z_OK, Z_BUF_ERROR:
                    // More to do while zlib filled its output or has input left; a step that
                    // made no progress with input left is a stream zlib cannot go on with.
                    if room == 0 { continue }
                    if unsafe stream.pointee.avail_in == 0 && !finishing { return .success(()) }
                    if status == Z_BUF_ERROR { return .failure(Failure(message: "The compressed data is not valid")) }
                default:
                    return .failure(Failure(message: "The compressed data is not valid"))
                }
            }
        }
        try result.get()
        return output
    }
}
