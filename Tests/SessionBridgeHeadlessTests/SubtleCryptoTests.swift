import Crypto
import CryptoExtras
import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// `crypto.subtle` on headless pages (`WebPlatformPrelude.subtleSource`,
/// `SubtleCryptoOperations`): what a page's own session code does with it (PKCE challenges,
/// DPoP proofs, checking an ID token, keeping a token encrypted), against the standards' own
/// test vectors, and that a key's material never reaches the page.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct SubtleCryptoTests {
    static func page(_ url: String = "https://app.example/") async throws -> WebPage {
        let page = WebPage()
        try await page.loadHTMLString("<p>subtle</p>", baseURL: URL(string: url)!)
        return page
    }

    /// Helpers every case's script starts with.
    static let prelude = """
        const hex = buffer => Array.from(new Uint8Array(buffer), byte => byte.toString(16).padStart(2, "0")).join("");
        const unhex = text => new Uint8Array(text.match(/../g).map(pair => parseInt(pair, 16)));
        const utf8 = text => new TextEncoder().encode(text);
        const unbase64url = text => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), c => c.charCodeAt(0));
        const subtle = crypto.subtle;
        const outcome = async promise => { try { await promise; return "fulfilled"; } catch (error) { return `${error.name}${error instanceof DOMException ? "" : " (not a DOMException)"}`; } };

        """

    static func run(_ body: String, on page: WebPage) async throws -> ScriptValue {
        try await page.callAsyncJavaScript(prelude + body)
    }

    @Test func digestsMACsAndDerivationsGiveTheirStandardsVectors() async throws {
        let page = try await Self.page()
        let result = try await Self.run(
            """
            const abc = utf8("abc");
            const jefe = await subtle.importKey("raw", utf8("Jefe"), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
            const message = utf8("what do ya want for nothing?");
            const mac = await subtle.sign("HMAC", jefe, message);
            const tampered = new Uint8Array(mac.slice(0)); tampered[31] ^= 1;
            const ikm = await subtle.importKey("raw", new Uint8Array(22).fill(0x0b), "HKDF", false, ["deriveBits"]);
            const password = await subtle.importKey("raw", utf8("password"), "PBKDF2", false, ["deriveBits"]);
            return [
              hex(await subtle.digest("SHA-1", abc)), hex(await subtle.digest({ name: "sha-256" }, abc)),
              hex(await subtle.digest("SHA-384", abc)).slice(0, 32), hex(await subtle.digest("SHA-512", abc.buffer)).slice(0, 32),
              hex(mac), await subtle.verify("HMAC", jefe, mac, message), await subtle.verify("HMAC", jefe, tampered, message),
              await subtle.verify("HMAC", jefe, mac.slice(0, 16), message),
              hex(await subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: unhex("000102030405060708090a0b0c"), info: unhex("f0f1f2f3f4f5f6f7f8f9") }, ikm, 336)),
              hex(await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: utf8("salt"), iterations: 2 }, password, 160)),
              jefe.algorithm.name, jefe.algorithm.hash.name, jefe.algorithm.length, jefe.type, jefe.extractable, jefe.usages.join(),
            ];
            """, on: page)
        #expect(
            result == [
                // FIPS 180-2's "abc".
                "a9993e364706816aba3e25717850c26c9cd0d89d", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                "cb00753f45a35e8bb5a03d699ac65007", "ddaf35a193617abacc417349ae204131",
                // RFC 4231's test case 2.
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", true, false, false,
                // RFC 5869's test case 1; RFC 6070's second.
                "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865",
                "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957",
                "HMAC", "SHA-256", 32, "secret", false, "sign,verify",
            ])
        await page.close()
    }

    @Test func signaturesMatchTheirRFCsAndVerifyNatively() async throws {
        let page = try await Self.page()
        let result = try await Self.run(
            """
            // RFC 7515 A.3: an ES256 JWS, checked with its JWK.
            const jwsKey = await subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
              y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" }, { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]);
            const signingInput = utf8("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ");
            const jws = unbase64url("DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q");
            // RFC 8032 7.1, test 1: Ed25519 of the empty message.
            const seed = unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
            const ed = await subtle.importKey("pkcs8", new Uint8Array([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20, ...seed]),
              "Ed25519", true, ["sign"]);
            // A DPoP-style key pair: the proof is made in the page, and checked natively.
            const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
            const proof = await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, utf8("proof"));
            const curves = [];
            for (const [namedCurve, hash, size] of [["P-384", "SHA-384", 96], ["P-521", "SHA-512", 132]]) {
              const keys = await subtle.generateKey({ name: "ECDSA", namedCurve }, true, ["sign", "verify"]);
              const signature = await subtle.sign({ name: "ECDSA", hash }, keys.privateKey, utf8("x"));
              const again = await subtle.importKey("jwk", await subtle.exportKey("jwk", keys.privateKey), { name: "ECDSA", namedCurve }, false, ["sign"]);
              const other = await subtle.sign({ name: "ECDSA", hash }, again, utf8("x"));
              const spki = await subtle.importKey("spki", await subtle.exportKey("spki", keys.publicKey), { name: "ECDSA", namedCurve }, false, ["verify"]);
              curves.push(signature.byteLength === size && await subtle.verify({ name: "ECDSA", hash }, spki, signature, utf8("x"))
                && await subtle.verify({ name: "ECDSA", hash }, keys.publicKey, other, utf8("x")) && !await subtle.verify({ name: "ECDSA", hash }, spki, other, utf8("y")));
            }
            return [
              await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, jwsKey, jws, signingInput),
              await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, jwsKey, jws, utf8("tampered")),
              hex(await subtle.sign("Ed25519", ed, new Uint8Array(0))), (await subtle.exportKey("jwk", ed)).x,
              hex(await subtle.exportKey("raw", pair.publicKey)), hex(proof), ...curves,
            ];
            """, on: page)
        guard case .array(let values) = result, values.count == 8 else {
            Issue.record("unexpected result \(result)")
            return
        }
        #expect(
            Array(values[0...3]) == [
                true, false,
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
                "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
            ])
        #expect(Array(values[6...7]) == [true, true])
        let publicKey = try P256.Signing.PublicKey(x963Representation: Self.bytes(hex: values[4].stringValue ?? ""))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Self.bytes(hex: values[5].stringValue ?? ""))
        #expect(publicKey.isValidSignature(signature, for: Array("proof".utf8)))
        await page.close()
    }

    @Test func rsaKeysSignAndVerifyAcrossFormats() async throws {
        let page = try await Self.page()
        let result = try await Self.run(
            """
            const rsa = await subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
              true, ["sign", "verify"]);
            const signature = await subtle.sign("RSASSA-PKCS1-v1_5", rsa.privateKey, utf8("id token"));
            const jwk = await subtle.exportKey("jwk", rsa.privateKey);
            const fromJWK = await subtle.importKey("jwk", jwk, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
            const publicJWK = await subtle.exportKey("jwk", rsa.publicKey);
            const verifier = await subtle.importKey("jwk", { kty: "RSA", n: publicJWK.n, e: publicJWK.e, alg: "RS256" }, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["verify"]);
            const pss = await subtle.importKey("pkcs8", await subtle.exportKey("pkcs8", rsa.privateKey), { name: "RSA-PSS", hash: "SHA-256" }, false, ["sign"]);
            const pssVerifier = await subtle.importKey("spki", await subtle.exportKey("spki", rsa.publicKey), { name: "RSA-PSS", hash: "SHA-256" }, false, ["verify"]);
            const pssSignature = await subtle.sign({ name: "RSA-PSS", saltLength: 32 }, pss, utf8("x"));
            const pssAgain = await subtle.sign({ name: "RSA-PSS", saltLength: 32 }, pss, utf8("x"));
            return [
              Object.keys(jwk).join(), jwk.alg, jwk.e, rsa.publicKey.algorithm.modulusLength, Array.from(rsa.publicKey.algorithm.publicExponent).join(),
              await subtle.verify("RSASSA-PKCS1-v1_5", verifier, signature, utf8("id token")),
              hex(await subtle.sign("RSASSA-PKCS1-v1_5", fromJWK, utf8("id token"))) === hex(signature),
              await subtle.verify({ name: "RSA-PSS", saltLength: 32 }, pssVerifier, pssSignature, utf8("x")),
              hex(pssSignature) !== hex(pssAgain),
              await outcome(subtle.importKey("jwk", publicJWK, { name: "RSA-PSS", hash: "SHA-256" }, false, ["verify"])),
              await outcome(subtle.sign({ name: "RSA-PSS", saltLength: 20 }, pss, utf8("x"))),
            ];
            """, on: page)
        #expect(
            result == [
                "alg,d,dp,dq,e,ext,key_ops,kty,n,p,q,qi", "RS256", "AQAB", 2048, "1,0,1", true, true, true, true,
                // The JWK says RS256, not PS256; swift-crypto's PSS salt is the hash's length.
                "DataError", "NotSupportedError",
            ])
        await page.close()
    }

    @Test func aesGCMEncryptsAsNISTSaysAndWrapsKeys() async throws {
        let page = try await Self.page()
        let result = try await Self.run(
            """
            // The GCM specification's test case 3.
            const key = await subtle.importKey("raw", unhex("feffe9928665731c6d6a8f9467308308"), "AES-GCM", true, ["encrypt", "decrypt"]);
            const iv = unhex("cafebabefacedbaddecaf888");
            const plain = unhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255");
            const sealed = await subtle.encrypt({ name: "AES-GCM", iv }, key, plain);
            const tampered = new Uint8Array(sealed.slice(0)); tampered[0] ^= 1;
            // A token kept encrypted under a non-extractable key; an HMAC key wrapped as a JWK.
            const wrapping = await subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["wrapKey", "unwrapKey", "encrypt"]);
            const hmac = await subtle.importKey("raw", utf8("Jefe"), { name: "HMAC", hash: "SHA-256" }, true, ["sign"]);
            const wrapped = await subtle.wrapKey("jwk", hmac, wrapping, { name: "AES-GCM", iv: new Uint8Array(12) });
            const unwrapped = await subtle.unwrapKey("jwk", wrapped, wrapping, { name: "AES-GCM", iv: new Uint8Array(12) }, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
            const password = await subtle.importKey("raw", utf8("secret"), "PBKDF2", false, ["deriveKey"]);
            const derived = await subtle.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: utf8("salt"), iterations: 1000 }, password, { name: "AES-GCM", length: 128 }, true, ["encrypt"]);
            return [
              hex(sealed), hex(await subtle.decrypt({ name: "AES-GCM", iv }, key, sealed)) === hex(plain),
              await outcome(subtle.decrypt({ name: "AES-GCM", iv }, key, tampered)),
              hex(await subtle.sign("HMAC", unwrapped, utf8("what do ya want for nothing?"))), unwrapped.extractable,
              await outcome(subtle.wrapKey("raw", unwrapped, wrapping, { name: "AES-GCM", iv: new Uint8Array(12) })),
              derived.algorithm.length, (await subtle.exportKey("raw", derived)).byteLength,
            ];
            """, on: page)
        #expect(
            result == [
                .string(
                    "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985"
                        + "4d5c2af327cd64a62cf35abd2ba6fab4"),
                true, "OperationError",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", false, "InvalidAccessError",
                128, 16,
            ])
        await page.close()
    }

    @Test func ecdhPartiesDeriveTheSameSecret() async throws {
        let page = try await Self.page()
        let result = try await Self.run(
            """
            const alice = await subtle.generateKey({ name: "ECDH", namedCurve: "P-384" }, false, ["deriveBits"]);
            const bob = await subtle.generateKey({ name: "ECDH", namedCurve: "P-384" }, false, ["deriveBits"]);
            const other = await subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
            const one = await subtle.deriveBits({ name: "ECDH", public: bob.publicKey }, alice.privateKey, null);
            const two = await subtle.deriveBits({ name: "ECDH", public: alice.publicKey }, bob.privateKey, 384);
            return [one.byteLength, hex(one) === hex(two), alice.publicKey.usages.length, alice.privateKey.usages.join(),
              await outcome(subtle.deriveBits({ name: "ECDH", public: other.publicKey }, alice.privateKey, 256))];
            """, on: page)
        #expect(result == [48, true, 0, "deriveBits", "InvalidAccessError"])
        await page.close()
    }

    @Test func aKeysMaterialNeverReachesThePage() async throws {
        let page = try await Self.page()
        let result = try await Self.run(
            """
            // A page that watches every value a promise resolves with.
            const seen = [];
            Object.defineProperty(Object.prototype, "then", { get() { seen.push(Object.keys(this).join()); return undefined; }, configurable: true });
            const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
            const secret = await subtle.importKey("raw", utf8("do not show"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
            delete Object.prototype.then;
            const key = pair.privateKey;
            key.algorithm.name = "changed";
            key.usages.push("verify");
            let constructed;
            try { new CryptoKey(); constructed = "constructed"; } catch (error) { constructed = error.name; }
            return [
              seen.every(keys => ["0,1", "privateKey,publicKey", "handle,length", ""].includes(keys)), seen.includes(""), Object.getOwnPropertyNames(key).length, JSON.stringify(secret),
              await outcome(subtle.exportKey("jwk", key)), await outcome(subtle.exportKey("raw", secret)),
              key.algorithm.name === "changed", await outcome(subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, utf8("x"))),
              await outcome(subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, new Uint8Array(64), utf8("x"))),
              await outcome(subtle.sign("HMAC", { type: "secret", algorithm: { name: "HMAC" }, usages: ["sign"] }, utf8("x"))),
              constructed, Object.prototype.toString.call(key), subtle instanceof SubtleCrypto, key instanceof CryptoKey,
            ];
            """, on: page)
        #expect(
            result == [
                // What resolved: handles, the pair, the import's record and the key (no own members).
                true, true, 0, "{}", "InvalidAccessError", "InvalidAccessError",
                // The shown algorithm is the page's copy; the key's own usages are unchanged.
                true, "fulfilled", "InvalidAccessError", "TypeError (not a DOMException)",
                "TypeError", "[object CryptoKey]", true, true,
            ])
        await page.close()
    }

    @Test func badInputRejectsWithTheStandardsErrors() async throws {
        let page = try await Self.page()
        let result = try await Self.run(
            """
            const hmac = await subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, true, ["sign"]);
            const p256 = { name: "ECDSA", namedCurve: "P-256" };
            return [
              await outcome(subtle.digest("MD5", utf8(""))),
              await outcome(subtle.digest("SHA-256")),
              await outcome(subtle.digest("SHA-256", "not bytes")),
              await outcome(subtle.digest({}, utf8(""))),
              await outcome(subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, [])),
              await outcome(subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["encrypt"])),
              await outcome(subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["fly"])),
              await outcome(subtle.generateKey({ name: "ECDSA", namedCurve: "P-192" }, false, ["sign"])),
              await outcome(subtle.generateKey({ name: "AES-GCM", length: 100 }, false, ["encrypt"])),
              await outcome(subtle.importKey("spki", utf8("garbage"), p256, true, ["verify"])),
              await outcome(subtle.importKey("pkcs8", utf8("garbage"), p256, true, ["sign"])),
              await outcome(subtle.importKey("jwk", { kty: "EC", crv: "P-384", x: "AA", y: "AA" }, p256, true, ["verify"])),
              await outcome(subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "AAAA" }, p256, true, ["verify"])),
              await outcome(subtle.importKey("jwk", { kty: "oct", k: "not base64url!" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"])),
              await outcome(subtle.importKey("jwk", { kty: "oct", k: "AAAA", ext: false }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"])),
              await outcome(subtle.importKey("jwk", { kty: "oct", k: "AAAA", key_ops: ["verify"] }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"])),
              await outcome(subtle.importKey("raw", new Uint8Array(15), "AES-GCM", true, ["encrypt"])),
              await outcome(subtle.importKey("raw", utf8("x"), "HKDF", true, ["deriveBits"])),
              await outcome(subtle.importKey("raw", utf8("x"), { name: "RSA-PSS", hash: "SHA-256" }, true, ["verify"])),
              await outcome(subtle.importKey("der", utf8("x"), "HKDF", false, ["deriveBits"])),
              await outcome(subtle.exportKey("spki", hmac)),
              await outcome(subtle.sign({ name: "ECDSA", hash: "SHA-256" }, hmac, utf8(""))),
              await outcome(subtle.verify("HMAC", hmac, new Uint8Array(32), utf8(""))),
              await outcome(subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: utf8(""), iterations: 1 }, hmac, 256)),
              await outcome(subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12), tagLength: 127 },
                await subtle.generateKey({ name: "AES-GCM", length: 128 }, false, ["encrypt"]), utf8(""))),
              await outcome(subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: utf8(""), iterations: 20000000 },
                await subtle.importKey("raw", utf8("x"), "PBKDF2", false, ["deriveBits"]), 256)),
            ];
            """, on: page)
        #expect(
            result == [
                "NotSupportedError", "TypeError (not a DOMException)", "TypeError (not a DOMException)", "TypeError (not a DOMException)",
                "SyntaxError", "SyntaxError", "TypeError (not a DOMException)", "NotSupportedError", "OperationError",
                "DataError", "DataError", "DataError", "DataError", "DataError", "DataError", "DataError", "DataError",
                "SyntaxError", "NotSupportedError", "TypeError (not a DOMException)",
                "NotSupportedError", "InvalidAccessError", "InvalidAccessError", "InvalidAccessError", "OperationError",
                "NotSupportedError",
            ])
        await page.close()
    }

    /// As web-platform-tests check browsers: arguments are read when a method is called (a buffer
    /// detached after keeps its bytes, one detached before has none), a bad algorithm rejects
    /// before the next job, the steps after it (usages) later.
    @Test func argumentsAreReadAtTheCallAndLaterStepsRejectLater() async throws {
        let page = try await Self.page()
        let result = try await Self.run(
            """
            const timing = async promise => {
              let queued = false;
              const settled = promise.then(() => "fulfilled", error => `${error.name} ${queued ? "later" : "at once"}`);
              Promise.resolve().then(() => { queued = true; });
              return settled;
            };
            const data = utf8("abc");
            const pending = subtle.digest("SHA-256", data);
            data.buffer.transfer();
            const detached = utf8("abc");
            const empty = subtle.digest({ get name() { detached.buffer.transfer(); return "SHA-256"; } }, detached);
            const spki = await subtle.exportKey("spki", (await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"])).publicKey);
            const imported = await subtle.importKey("spki", spki, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
            return [
              hex(await pending), hex(await empty),
              await timing(subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["encrypt"])),
              await timing(subtle.generateKey({ name: "HMAC", hash: "SHA-255" }, false, ["sign"])),
              await timing(subtle.generateKey({ name: "AES-GCM", length: 64 }, false, ["encrypt"])),
              await timing(subtle.importKey("raw", new Uint8Array(16), "AES-GCM", false, [])),
              await timing(subtle.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([3]), hash: "SHA-256" }, false, ["sign"])),
              await timing(subtle.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 0]), hash: "SHA-256" }, false, ["sign"])),
              imported.extractable, imported.type,
            ];
            """, on: page)
        #expect(
            result == [
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "SyntaxError later", "NotSupportedError at once", "OperationError at once", "SyntaxError later",
                "NotSupportedError later", "OperationError at once",
                // An imported public key is as extractable as asked, as in WebKit.
                false, "public",
            ])
        await page.close()
    }

    /// Lengths at the edges: none at all (swift-crypto's HKDF traps on an empty output, which
    /// would end the process), and more than one derivation gives.
    @Test func derivationLengthsAtTheEdgesAreAnswered() async throws {
        let page = try await Self.page()
        let pkcs1 = try _RSA.Signing.PrivateKey(keySize: .bits2048).derRepresentation
        let result = try await Self.run(
            """
            const hkdf = await subtle.importKey("raw", new Uint8Array(16), "HKDF", false, ["deriveBits"]);
            const pbkdf2 = await subtle.importKey("raw", new Uint8Array(16), "PBKDF2", false, ["deriveBits"]);
            const parameters = { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new Uint8Array(0) };
            return [
              (await subtle.deriveBits(parameters, hkdf, 0)).byteLength,
              (await subtle.deriveBits(parameters, hkdf, 255 * 256)).byteLength,
              await outcome(subtle.deriveBits(parameters, hkdf, 255 * 256 + 8)),
              await outcome(subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: new Uint8Array(0), iterations: 1 }, pbkdf2, 0xFFFFFFF8)),
              await outcome(subtle.importKey("pkcs8", unhex("\(pkcs1.map { String(format: "%02x", $0) }.joined())"), { name: "RSA-PSS", hash: "SHA-256" }, false, ["sign"])),
            ];
            """, on: page)
        // A PKCS #1 key is no PKCS #8 one, though swift-crypto reads both.
        #expect(result == [0, 8160, "OperationError", "OperationError", "DataError"])
        await page.close()
    }

    /// A cloned key (`structuredClone`, a history state) is a new `CryptoKey` over a native copy
    /// of the material: it works after the original is gone.
    @Test func aClonedKeyHasItsOwnCopyOfTheMaterial() async throws {
        let page = try await Self.page()
        let result = try await Self.run(
            """
            let key = await subtle.importKey("raw", utf8("Jefe"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
            const { copy } = structuredClone({ copy: key });
            history.replaceState({ key }, "");
            key = null;
            return [copy instanceof CryptoKey, copy.extractable, copy.usages.join(), history.state.key instanceof CryptoKey,
              hex(await subtle.sign("HMAC", copy, utf8("what do ya want for nothing?")))];
            """, on: page)
        #expect(result == [true, false, "sign", true, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"])
        await page.close()
    }

    @Test func onlySecureContextsHaveSubtle() async throws {
        let page = try await Self.page("http://app.example/")
        let result = try await page.evaluateJavaScript(
            "[isSecureContext, typeof crypto.subtle, typeof CryptoKey, 'CryptoKey' in globalThis, 'SubtleCrypto' in globalThis, typeof crypto.getRandomValues]"
        )
        #expect(result == [false, "undefined", "undefined", false, false, "function"])
        await page.close()
    }

    @Test func collectedKeysLeaveTheTable() async throws {
        let page = try await Self.page()
        let context = try await page.context()
        _ = try await Self.run(
            """
            globalThis.kept = await subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
            for (let index = 0; index < 300; index++) await subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
            """, on: page)
        // The collector may have run already; each collection's callbacks run in jobs of their own.
        var after = await context.subtleKeyCount
        for _ in 0..<50 where after > 1 {
            await context.collectGarbage()
            _ = try await page.callAsyncJavaScript("await new Promise(resolve => setTimeout(resolve, 10));")
            after = await context.subtleKeyCount
        }
        #expect(after < 301)
        // A key nothing else holds stays while an operation on it runs, collections or not.
        let collecting = Task {
            while !Task.isCancelled {
                await context.collectGarbage()
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        let signed = try await Self.run(
            """
            let count = 0;
            for (let index = 0; index < 200; index++) {
              const signature = await subtle.sign("HMAC", await subtle.importKey("raw", utf8("k" + index), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]), utf8("x"));
              if (signature.byteLength === 32) count++;
            }
            return count;
            """, on: page)
        collecting.cancel()
        #expect(signed == 200)
        #expect(try await Self.run("return (await subtle.sign('HMAC', kept, utf8('x'))).byteLength;", on: page) == 32)
        await page.close()
    }

    @Test func anOperationKeepsTheKeysItWasCalledWith() throws {
        let table = SubtleKeyTable()
        let handle = table.insert(.secret(Array("Jefe".utf8)))
        let arguments: [ScriptValue] = [
            "sign", "HMAC", .number(Double(handle)), .bytes(Array("what do ya want for nothing?".utf8)), "SHA-256",
        ]
        let held = table.keys(among: arguments)
        // The page's key is collected and forgotten before the operation runs on its queue.
        table.remove(handle)
        #expect(table.count == 0)
        let mac = try SubtleCryptoOperations.perform(arguments, held: held, keys: table)
        #expect(mac == .bytes(Self.bytes(hex: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")))
        #expect(throws: ScriptThrow.self) { try SubtleCryptoOperations.perform(arguments, held: table.keys(among: arguments), keys: table) }
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), next > index {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}

extension ScriptContext {
    /// How many `crypto.subtle` keys the world holds.
    fileprivate var subtleKeyCount: Int { attachment(SubtleKeyTable.self)?.count ?? 0 }
}
