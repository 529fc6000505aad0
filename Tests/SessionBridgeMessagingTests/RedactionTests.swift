import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeMessaging

/// The message log's redaction: secrets hidden at any depth, whatever the key's case, and a
/// value without secrets returned as it is.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct RedactionTests {
    let policy = RedactionPolicy(secretPrefixes: ["sbrt_"])

    @Test func keysAreMatchedWhateverTheirCase() {
        let body: ScriptValue = [
            "Refresh_Token": "a", "ACCESS_TOKEN": "b", "password": "c", "Set-Cookie": "d", "ok": true,
            "nested": ["list": [["Authorization": "Bearer x"]], "plain": "sbrt_secret"],
        ]
        let expected: ScriptValue = [
            "Refresh_Token": "<redacted>", "ACCESS_TOKEN": "<redacted>", "password": "<redacted>", "Set-Cookie": "<redacted>", "ok": true,
            "nested": ["list": [["Authorization": "<redacted>"]], "plain": "<redacted>"],
        ]
        #expect(policy.redact(body) == expected)
    }

    @Test func aKeyOutsideASCIIIsComparedLowerCased() {
        let policy = RedactionPolicy(keys: ["jeton_é"])
        #expect(
            policy.redact(["JETON_É": "x", "jeton_é": "y", "other": "z"]) == [
                "JETON_É": "<redacted>", "jeton_é": "<redacted>", "other": "z",
            ])
    }

    /// Keys are first told apart by length and first letter; that must never pass a secret.
    @Test func theQuickKeyCheckNeverPassesASecret() {
        var policy = RedactionPolicy()
        // A key whose lower-cased form is ASCII but which is not ASCII itself (KELVIN SIGN).
        #expect(
            policy.redact(["coo\u{212A}ie": "x", "cooker": "y", "tokens": "z"]) == [
                "coo\u{212A}ie": "<redacted>", "cooker": "y", "tokens": "z",
            ])
        // Keys changed after the policy was made take part at once, in any case.
        policy.keys.insert("xsrf_state")
        #expect(
            policy.redact(["xsrf_state": "a", "XSRF_STATE": "b", "xsrf_statf": "c"]) == [
                "xsrf_state": "<redacted>", "XSRF_STATE": "<redacted>", "xsrf_statf": "c",
            ])
        // Long keys, and keys that start outside ASCII.
        let long = String(repeating: "k", count: 80)
        let policy2 = RedactionPolicy(keys: [long, "élan"])
        #expect(
            policy2.redact([long: "a", long.uppercased(): "b", "ÉLAN": "c", "elan": "d"]) == [
                long: "<redacted>", long.uppercased(): "<redacted>", "ÉLAN": "<redacted>", "elan": "d",
            ])
    }

    @Test func valuesWithoutSecretsComeBackUnchanged() {
        let bodies: [ScriptValue] = [
            .undefined, .null, 1, "text", ["action": "refresh", "id": 7, "meta": ["a": 1, "b": "x"]], [["A": 1], [2, "sbr"]],
            .bytes([1, 2]),
        ]
        for body in bodies { #expect(policy.redact(body) == body) }
    }
}
