import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A value one document sends another (a `BroadcastChannel`'s message) arrives as its
/// structured clone on both engines: dates, maps, sets, binary data, blobs, errors, regular
/// expressions, shared references, `BigInt`s, `-0`, `NaN`, `undefined` members and
/// `CryptoKey`s that work. (Before, the headless engine sent what the bridge carries: a `Date`
/// was refused, and a `CryptoKey` arrived as an empty object.)
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct MessagesAcrossDocumentsOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func aBroadcastMessageArrivesAsItsStructuredClone(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let listener = try await harness.makeEchoView(sharingStore: true)
            let sender = try await harness.makeEchoView(sharingStore: true)
            _ = try await listener.run(
                """
                window.got = new Promise(resolve => { new BroadcastChannel("wire").onmessage = event => resolve(event.data); });
                return 1;
                """)
            let tag = try await sender.run(
                """
                const key = await crypto.subtle.importKey("raw", new Uint8Array(32).fill(3), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
                const shared = { n: 1 };
                const cyclic = { name: "loop" };
                cyclic.self = cyclic;
                new BroadcastChannel("wire").postMessage({
                  date: new Date(5), map: new Map([["a", 1]]), set: new Set(["x"]), bytes: new Uint8Array([1, 2, 3]),
                  big: 12345678901234567890n, negativeZero: -0, nan: NaN, u: undefined, error: new TypeError("bad"), pattern: /ab+c/gi,
                  shared: { a: shared, b: shared }, cyclic, blob: new Blob(["blob text"], { type: "text/plain" }), key,
                });
                return Array.from(new Uint8Array(await crypto.subtle.sign("HMAC", key, new Uint8Array([9]))));
                """)
            let read = try await listener.run(
                """
                const d = await window.got;
                return [
                  d.date instanceof Date && d.date.getTime(), d.map instanceof Map && [...d.map], d.set instanceof Set && [...d.set],
                  d.bytes instanceof Uint8Array && Array.from(d.bytes), typeof d.big === "bigint" && String(d.big), Object.is(d.negativeZero, -0),
                  Number.isNaN(d.nan), "u" in d && d.u === undefined, d.error instanceof TypeError && d.error.message,
                  d.pattern instanceof RegExp && d.pattern.source + "/" + d.pattern.flags, d.shared.a === d.shared.b, d.cyclic.self === d.cyclic,
                  d.blob instanceof Blob && [d.blob.type, await d.blob.text()],
                  String(d.key), d.key.extractable, Array.from(new Uint8Array(await crypto.subtle.sign("HMAC", d.key, new Uint8Array([9])))),
                ];
                """)
            let expected: ScriptValue = [
                5, [["a", 1]], ["x"], [1, 2, 3], "12345678901234567890", true, true, true, "bad", "ab+c/gi", true, true,
                ["text/plain", "blob text"], "[object CryptoKey]", false, tag,
            ]
            #expect(read == expected, "\(engine): \(read)")
        }
    }
}
