import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// `CompressionStream` and `DecompressionStream` side by side: the headless engine's (zlib)
/// make and read what WebKit's make and read, in the three formats, and refuse what WebKit
/// refuses.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct CompressionStreamsOnBothEnginesTests {
    static let helpers = """
        const through = async (stream, chunks) => {
          const writer = stream.writable.getWriter();
          const written = (async () => { for (const chunk of chunks) await writer.write(chunk); await writer.close(); })();
          const parts = [];
          const reader = stream.readable.getReader();
          for (;;) { const { done, value } = await reader.read(); if (done) break; parts.push(value); }
          await written;
          const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
          let at = 0;
          for (const part of parts) { all.set(part, at); at += part.length; }
          return all;
        };
        const outcome = async promise => { try { await promise; return "fulfilled"; } catch (error) { return error.name; } };
        const text = "déjà vu, ".repeat(3000);

        """

    @Test(arguments: Engine.allCases)
    func compressedBytesReadBackInEveryFormat(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                Self.helpers + """
                    const results = [];
                    for (const format of ["gzip", "deflate", "deflate-raw"]) {
                      const input = new TextEncoder().encode(text);
                      // Written in three chunks, one of them a view into a larger buffer.
                      const chunks = [input.slice(0, 1000), new DataView(input.buffer, 1000, 5000), input.slice(6000).buffer];
                      const packed = await through(new CompressionStream(format), chunks);
                      const unpacked = await through(new DecompressionStream(format), [packed.slice(0, 7), packed.slice(7)]);
                      results.push([format, packed.length < input.length / 10, Array.from(packed.slice(0, 2)).join(","),
                        new TextDecoder().decode(unpacked) === text]);
                    }
                    // A gzip member another program made (Python's gzip): {"word": "déjà vu, déjà vu, déjà vu"}.
                    const made = Uint8Array.from(atob("H4sIAAAAAAAC/6tWKs8vSlGyUlBKObwy6/AChbJSHQVsTKVaADsC1wwrAAAA"), c => c.charCodeAt(0));
                    results.push(JSON.parse(new TextDecoder().decode(await through(new DecompressionStream("gzip"), [made]))).word);
                    results.push(Object.prototype.toString.call(new CompressionStream("gzip")), typeof DecompressionStream);
                    return results;
                    """)
            let deflateStart = seen.element(1)?.element(2)?.stringValue ?? ""
            #expect(seen.element(0) == ["gzip", true, "31,139", true], "\(engine)")
            // The zlib format: a first byte of 0x78 (deflate with a 32 KB window), its second the level's.
            #expect(seen.element(1)?.element(3) == true && deflateStart.hasPrefix("120,"), "\(engine): \(seen)")
            #expect(seen.element(2)?.element(3) == true && seen.element(2)?.element(1) == true, "\(engine): \(seen)")
            #expect(seen.element(3) == "déjà vu, déjà vu, déjà vu", "\(engine)")
            #expect(seen.element(4) == "[object CompressionStream]", "\(engine)")
            #expect(seen.element(5) == "function", "\(engine)")
        }
    }

    @Test(arguments: Engine.allCases)
    func whatCannotBeReadIsATypeError(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                Self.helpers + """
                    const packed = await through(new CompressionStream("gzip"), [new TextEncoder().encode(text)]);
                    const corrupt = packed.slice(); corrupt[20] ^= 0xff; corrupt[21] ^= 0xff;
                    const trailing = new Uint8Array(packed.length + 3); trailing.set(packed);
                    const made = [];
                    for (const make of [() => new CompressionStream("br"), () => new DecompressionStream("zstd"), () => new CompressionStream()]) {
                      try { make(); made.push("made"); } catch (error) { made.push(error.name); }
                    }
                    return [
                      made,
                      await outcome(through(new DecompressionStream("gzip"), [corrupt])),
                      await outcome(through(new DecompressionStream("gzip"), [packed.slice(0, packed.length - 9)])),
                      await outcome(through(new DecompressionStream("gzip"), [trailing])),
                      await outcome(through(new DecompressionStream("deflate"), [packed])),
                      await outcome(through(new CompressionStream("gzip"), ["text is no chunk"])),
                      await outcome(through(new DecompressionStream("gzip"), [packed])),
                    ];
                    """)
            #expect(seen.element(0) == ["TypeError", "TypeError", "TypeError"], "\(engine)")
            // A corrupt stream, one cut short, one with bytes past its end, one in another format, a chunk that is no bytes.
            #expect(
                seen == [
                    ["TypeError", "TypeError", "TypeError"], "TypeError", "TypeError", "TypeError", "TypeError", "TypeError", "fulfilled",
                ],
                "\(engine): \(seen)")
        }
    }
}
