extension WebPlatformPrelude {
    /// `crypto.subtle`, `CryptoKey` and `SubtleCrypto` (Web Cryptography API), part of
    /// ``source`` and made in a secure context only: `digest` (SHA-1, SHA-256, SHA-384,
    /// SHA-512); `HMAC`, `ECDSA` (P-256, P-384, P-521), `Ed25519`, `RSASSA-PKCS1-v1_5` and
    /// `RSA-PSS` signatures; `ECDH`, `HKDF` and `PBKDF2` derivation; `AES-GCM` encryption, and
    /// `wrapKey`/`unwrapKey` through it; `generateKey`, and `importKey`/`exportKey` in the
    /// `raw`, `spki`, `pkcs8` and `jwk` formats each algorithm has.
    ///
    /// The algorithms are normalized, and keys' types, usages and extractability checked, as the
    /// standard says, with its errors. A `CryptoKey` holds only a handle: its material stays
    /// native (``SubtleKeyTable``), where ``SubtleCryptoOperations`` works on it off the page's
    /// thread. swift-crypto has no form of some parameters: RSA keys are generated with a
    /// public exponent of 65537 and 2048, 3072 or 4096 bits; RSA-PSS's salt is as long as its
    /// hash; AES-GCM's tag is 128 bits and its iv at least 12 bytes. Those reject with a
    /// `NotSupportedError`.
    static let subtleSource = #"""
          const webCrypto = !secure ? {} : (() => {
            const failure = (name, message) => new DOMException(message, name);
            const asciiUpper = value => value.replace(/[a-z]+/g, letters => letters.toUpperCase());
            const allUsages = ["encrypt", "decrypt", "sign", "verify", "deriveKey", "deriveBits", "wrapKey", "unwrapKey"];
            const hashBlockBits = { "SHA-1": 512, "SHA-256": 512, "SHA-384": 1024, "SHA-512": 1024 };
            const enforce = (value, max, what) => {
              const number = Number(value);
              if (!Number.isFinite(number)) throw new TypeError(`${what} is not a finite number.`);
              const integer = Math.trunc(number);
              if (integer < 0 || integer > max) throw new TypeError(`${what} is out of range.`);
              return integer;
            };
            const required = (dictionary, name, algorithm) => {
              const value = dictionary[name];
              if (value === undefined) throw new TypeError(`${algorithm}: the member ${name} is required.`);
              return value;
            };
            // A copy of a BufferSource's bytes, taken when the method is called (WebIDL); a
            // detached buffer has none.
            const copied = (buffer, offset, length) => { try { return new Uint8Array(buffer, offset, length).slice(); } catch { return new Uint8Array(0); } };
            const bytesOf = (value, what) => {
              if (isView(value)) return copied(value.buffer, value.byteOffset, value.byteLength);
              if (value instanceof ArrayBuffer) return copied(value);
              throw new TypeError(`${what} is not an ArrayBuffer or an ArrayBuffer view.`);
            };
            const toBuffer = bytes => bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

            // Algorithm normalization: each operation's registered algorithms and how their
            // parameters are read.
            const hashOf = (dictionary, algorithm) => normalize("digest", required(dictionary, "hash", algorithm)).name;
            const curveOf = (dictionary, algorithm) => String(required(dictionary, "namedCurve", algorithm));
            const none = () => ({});
            const hmacParameters = dictionary => ({ hash: hashOf(dictionary, "HMAC"), length: dictionary.length === undefined ? undefined : enforce(dictionary.length, 0xFFFFFFFF, "length") });
            const rsaGenerate = dictionary => ({
              modulusLength: enforce(required(dictionary, "modulusLength", "RSA"), 0xFFFFFFFF, "modulusLength"),
              publicExponent: bytesOf(required(dictionary, "publicExponent", "RSA"), "publicExponent").slice(), hash: hashOf(dictionary, "RSA") });
            const rsaImport = dictionary => ({ hash: hashOf(dictionary, "RSA") });
            const ecParameters = dictionary => ({ namedCurve: curveOf(dictionary, "EC") });
            const aesLength = dictionary => ({ length: enforce(required(dictionary, "length", "AES"), 0xFFFF, "length") });
            const registry = {
              digest: { "SHA-1": none, "SHA-256": none, "SHA-384": none, "SHA-512": none },
              sign: { HMAC: none, ECDSA: dictionary => ({ hash: hashOf(dictionary, "ECDSA") }), Ed25519: none, "RSASSA-PKCS1-v1_5": none,
                "RSA-PSS": dictionary => ({ saltLength: enforce(required(dictionary, "saltLength", "RSA-PSS"), 0xFFFFFFFF, "saltLength") }) },
              generateKey: { HMAC: hmacParameters, ECDSA: ecParameters, ECDH: ecParameters, Ed25519: none, "RSASSA-PKCS1-v1_5": rsaGenerate,
                "RSA-PSS": rsaGenerate, "AES-GCM": aesLength },
              importKey: { HMAC: hmacParameters, ECDSA: ecParameters, ECDH: ecParameters, Ed25519: none, "RSASSA-PKCS1-v1_5": rsaImport,
                "RSA-PSS": rsaImport, "AES-GCM": none, HKDF: none, PBKDF2: none },
              encrypt: { "AES-GCM": dictionary => ({
                iv: bytesOf(required(dictionary, "iv", "AES-GCM"), "iv"),
                additionalData: dictionary.additionalData === undefined ? new Uint8Array(0) : bytesOf(dictionary.additionalData, "additionalData"),
                tagLength: dictionary.tagLength === undefined ? 128 : enforce(dictionary.tagLength, 255, "tagLength") }) },
              deriveBits: {
                HKDF: dictionary => ({ hash: hashOf(dictionary, "HKDF"), salt: bytesOf(required(dictionary, "salt", "HKDF"), "salt"), info: bytesOf(required(dictionary, "info", "HKDF"), "info") }),
                PBKDF2: dictionary => ({ hash: hashOf(dictionary, "PBKDF2"), iterations: enforce(required(dictionary, "iterations", "PBKDF2"), 0xFFFFFFFF, "iterations"),
                  salt: bytesOf(required(dictionary, "salt", "PBKDF2"), "salt") }),
                ECDH: dictionary => {
                  const publicKey = required(dictionary, "public", "ECDH");
                  if (internal(publicKey) === undefined) throw new TypeError("ECDH: public is not a CryptoKey.");
                  return { public: publicKey };
                } },
              getKeyLength: { HMAC: hmacParameters, "AES-GCM": aesLength, HKDF: none, PBKDF2: none },
              wrapKey: {}, unwrapKey: {},
            };
            registry.verify = registry.sign;
            registry.decrypt = registry.encrypt;
            function normalize(operation, algorithm) {
              if (typeof algorithm === "string") return normalize(operation, { name: algorithm });
              if (algorithm === null || (typeof algorithm !== "object" && typeof algorithm !== "function")) throw new TypeError("The algorithm is not an object or a string.");
              const given = String(required(algorithm, "name", "Algorithm"));
              const table = registry[operation];
              const name = Object.keys(table).find(candidate => asciiUpper(candidate) === asciiUpper(given));
              if (name === undefined) throw failure("NotSupportedError", `The algorithm ${given} is not supported for ${operation}.`);
              return { ...table[name](algorithm), name };
            }
            const usageList = value => {
              const list = [...value].map(String);
              for (const usage of list) if (!allUsages.includes(usage)) throw new TypeError(`'${usage}' is not a key usage.`);
              return allUsages.filter(usage => list.includes(usage));
            };
            const onlyUsages = (usages, allowed) => {
              for (const usage of usages) if (!allowed.includes(usage)) throw failure("SyntaxError", `The usage ${usage} is not allowed for this key.`);
            };

            // A CryptoKey: its material is native, behind a handle, and goes when the key is collected.
            const token = Symbol("CryptoKey");
            const forget = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(handle => native.platform("forget", handle)) : undefined;
            let internal;
            const copy = algorithm => {
              const out = { ...algorithm };
              if (algorithm.hash) out.hash = { name: algorithm.hash.name };
              if (algorithm.publicExponent) out.publicExponent = algorithm.publicExponent.slice();
              return out;
            };
            class CryptoKey {
              #type; #extractable; #algorithm; #usages; #handle; #shownAlgorithm; #shownUsages;
              constructor(secret, type, extractable, algorithm, usages, handle) {
                if (secret !== token) throw new TypeError("Illegal constructor");
                this.#type = type;
                this.#extractable = extractable;
                this.#algorithm = algorithm;
                this.#usages = usages;
                this.#handle = handle;
                if (forget) forget.register(this, handle);
              }
              get type() { return this.#type; }
              get extractable() { return this.#extractable; }
              get algorithm() { return this.#shownAlgorithm ??= copy(this.#algorithm); }
              get usages() { return this.#shownUsages ??= [...this.#usages]; }
              static {
                internal = key => (key !== null && typeof key === "object" && #handle in key)
                  ? { type: key.#type, extractable: key.#extractable, algorithm: key.#algorithm, usages: key.#usages, handle: key.#handle } : undefined;
              }
            }
            define(CryptoKey.prototype, Symbol.toStringTag, { value: "CryptoKey", configurable: true });
            const makeKey = (type, extractable, algorithm, usages, handle) => new CryptoKey(token, type, extractable, algorithm, usages, handle);

            // The native side takes the keys' material when called: a key collected while its
            // operation runs is forgotten after.
            const call = argumentList => native.platform("subtle", argumentList).then(undefined, error => {
              throw error.name === "TypeError" ? new TypeError(error.message) : failure(error.name, error.message);
            });
            // A method's arguments are converted and its algorithm normalized at once (an error
            // there rejects the promise it returns before any other job runs); the rest of its
            // steps run `later`, as the standard runs them in parallel.
            const promised = body => { try { return Promise.resolve(body()); } catch (error) { return Promise.reject(error); } };
            const later = body => Promise.resolve().then(body);
            const asKey = key => {
              const found = internal(key);
              if (found === undefined) throw new TypeError("The key is not a CryptoKey.");
              return found;
            };
            const checkKey = (found, name, usage) => {
              if (found.algorithm.name !== name) throw failure("InvalidAccessError", `The key is not a ${name} key.`);
              if (!found.usages.includes(usage)) throw failure("InvalidAccessError", `The key may not be used to ${usage}.`);
              return found;
            };
            const atLeast = (given, count, name) => { if (given < count) throw notEnough(`SubtleCrypto.${name}`, count); };

            // Keys: each algorithm's kind of material and usages.
            const kinds = { HMAC: "secret", "AES-GCM": "secret", HKDF: "secret", PBKDF2: "secret", ECDSA: "ec", ECDH: "ec", Ed25519: "ed25519",
              "RSASSA-PKCS1-v1_5": "rsa", "RSA-PSS": "rsa" };
            const pairUsages = { ECDSA: [["sign"], ["verify"]], ECDH: [["deriveKey", "deriveBits"], []], Ed25519: [["sign"], ["verify"]],
              "RSASSA-PKCS1-v1_5": [["sign"], ["verify"]], "RSA-PSS": [["sign"], ["verify"]] };
            const secretUsages = { HMAC: ["sign", "verify"], "AES-GCM": ["encrypt", "decrypt", "wrapKey", "unwrapKey"], HKDF: ["deriveKey", "deriveBits"],
              PBKDF2: ["deriveKey", "deriveBits"] };
            const keyAlgorithm = (normalized, facts = {}) => {
              const { name } = normalized;
              switch (name) {
                case "HMAC": return { name, hash: { name: normalized.hash }, length: facts.length };
                case "AES-GCM": return { name, length: facts.length };
                case "ECDSA": case "ECDH": return { name, namedCurve: normalized.namedCurve };
                case "RSASSA-PKCS1-v1_5": case "RSA-PSS":
                  return { name, modulusLength: facts.modulusLength, publicExponent: facts.publicExponent, hash: { name: normalized.hash } };
                default: return { name };
              }
            };
            const checkCurve = normalized => {
              if (!["P-256", "P-384", "P-521"].includes(normalized.namedCurve)) throw failure("NotSupportedError", `The named curve ${normalized.namedCurve} is not supported.`);
            };
            // An even exponent or 1 is no RSA exponent (at once); 3 and the other odd ones are,
            // but not swift-crypto's (`supported`, after the usages).
            const checkExponent = (normalized, supported = false) => {
              const exponent = Array.from(normalized.publicExponent).reduce((value, byte) => value * 256 + byte, 0);
              if (exponent === 65537) return;
              if (exponent < 3 || exponent % 2 === 0) throw failure("OperationError", "The public exponent is not a valid RSA exponent.");
              if (supported) throw failure("NotSupportedError", "RSA keys are generated with a public exponent of 65537.");
            };
            // A secret key's length for deriveKey and generateKey (AES: 128, 192 or 256; HMAC: its length or the hash's block).
            const secretLength = normalized => {
              if (normalized.name === "AES-GCM") {
                if (![128, 192, 256].includes(normalized.length)) throw failure("OperationError", "AES keys are 128, 192 or 256 bits long.");
                return normalized.length;
              }
              if (normalized.name === "HMAC") {
                const length = normalized.length === undefined ? hashBlockBits[normalized.hash] : normalized.length;
                if (length === 0) throw failure("OperationError", "An HMAC key cannot be 0 bits long.");
                return length;
              }
              throw failure("NotSupportedError", `${normalized.name} keys cannot be derived.`);
            };

            function generateKey(algorithm, extractable, keyUsages) {
              atLeast(arguments.length, 3, "generateKey");
              const normalized = normalize("generateKey", algorithm);
              const usages = usageList(keyUsages);
              extractable = !!extractable;
              // The algorithm's own parameters reject at once, as in browsers; the usages later.
              const { name } = normalized;
              const length = kinds[name] === "secret" ? secretLength(normalized) : undefined;
              if (kinds[name] === "ec") checkCurve(normalized);
              if (kinds[name] === "rsa") checkExponent(normalized);
              return later(() => generateNormalized(normalized, extractable, usages, length));
            }
            function generateNormalized(normalized, extractable, usages, length) {
              const { name } = normalized;
              if (kinds[name] === "secret") {
                onlyUsages(usages, secretUsages[name]);
                if (usages.length === 0) throw failure("SyntaxError", "A secret key needs at least one usage.");
                return call(["generate", "secret", Math.ceil(length / 8)]).then(handle =>
                  makeKey("secret", extractable, keyAlgorithm(normalized, { length }), usages, handle));
              }
              const [privateAllowed, publicAllowed] = pairUsages[name];
              onlyUsages(usages, [...privateAllowed, ...publicAllowed]);
              let request, facts = {};
              if (kinds[name] === "ec") request = ["generate", "ec", normalized.namedCurve];
              else if (kinds[name] === "ed25519") request = ["generate", "ed25519"];
              else {
                request = ["generate", "rsa", normalized.modulusLength];
                facts = { modulusLength: normalized.modulusLength, publicExponent: new Uint8Array([1, 0, 1]) };
              }
              const privateUsages = usages.filter(usage => privateAllowed.includes(usage));
              if (privateUsages.length === 0) throw failure("SyntaxError", "A private key needs at least one usage.");
              if (kinds[name] === "rsa") checkExponent(normalized, true);
              return call(request).then(([privateHandle, publicHandle]) => {
                const keyAlgorithmValue = keyAlgorithm(normalized, facts);
                // CryptoKeyPair's members in a dictionary's order, as WebKit gives them.
                return {
                  privateKey: makeKey("private", extractable, copy(keyAlgorithmValue), privateUsages, privateHandle),
                  publicKey: makeKey("public", true, keyAlgorithmValue, usages.filter(usage => publicAllowed.includes(usage)), publicHandle),
                };
              });
            }

            // JSON Web Keys (RFC 7517, 7518, 8037).
            const base64url = bytes => btoa(text(bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
            const fromBase64url = (value, member) => {
              if (typeof value !== "string" || !/^[A-Za-z0-9_-]*$/.test(value) || value.length % 4 === 1) throw failure("DataError", `The JWK's ${member} is not base64url.`);
              const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
              const bytes = new Uint8Array(binary.length);
              for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
              return bytes;
            };
            const jwkMembers = (jwk, names, needed) => {
              const out = {};
              for (const name of names) {
                if (jwk[name] !== undefined) out[name] = fromBase64url(jwk[name], name);
                else if (needed.includes(name)) throw failure("DataError", `The JWK has no ${name}.`);
              }
              return out;
            };
            const jwkAlgorithms = {
              HMAC: { "SHA-1": "HS1", "SHA-256": "HS256", "SHA-384": "HS384", "SHA-512": "HS512" },
              "RSASSA-PKCS1-v1_5": { "SHA-1": "RS1", "SHA-256": "RS256", "SHA-384": "RS384", "SHA-512": "RS512" },
              "RSA-PSS": { "SHA-1": "PS1", "SHA-256": "PS256", "SHA-384": "PS384", "SHA-512": "PS512" },
              ECDSA: { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" },
            };
            const jwkAlgorithm = (name, normalized, length) => {
              if (name === "AES-GCM") return `A${length}GCM`;
              if (name === "Ed25519") return "Ed25519";
              const table = jwkAlgorithms[name];
              return table ? table[name === "ECDSA" ? normalized.namedCurve : normalized.hash] : undefined;
            };
            // A JsonWebKey dictionary (WebIDL), read when importKey is called.
            const jwkDictionary = value => {
              if (value === null || typeof value !== "object") throw new TypeError("The key data is not a JSON Web Key.");
              const out = {};
              for (const name of ["alg", "crv", "d", "dp", "dq", "e", "ext", "k", "key_ops", "kty", "n", "oth", "p", "q", "qi", "use", "x", "y"]) {
                const member = value[name];
                if (member === undefined) continue;
                out[name] = name === "ext" ? !!member : name === "key_ops" ? [...member].map(String) : name === "oth" ? member : String(member);
              }
              return out;
            };
            const checkJWK = (jwk, kty, usages, extractable, use) => {
              if (jwk.kty !== kty) throw failure("DataError", `The JWK's kty is not ${kty}.`);
              if (usages.length > 0 && jwk.use !== undefined && jwk.use !== use) throw failure("DataError", `The JWK's use is not ${use}.`);
              if (jwk.key_ops !== undefined) {
                const operations = jwk.key_ops;
                if (new Set(operations).size !== operations.length) throw failure("DataError", "The JWK's key_ops repeats a usage.");
                if (!usages.every(usage => operations.includes(usage))) throw failure("DataError", "The usages are not all in the JWK's key_ops.");
              }
              if (jwk.ext === false && extractable) throw failure("DataError", "The JWK is not extractable.");
            };

            function importKey(format, keyData, algorithm, extractable, keyUsages) {
              atLeast(arguments.length, 5, "importKey");
              format = String(format);
              if (!["raw", "spki", "pkcs8", "jwk"].includes(format)) throw new TypeError(`'${format}' is not a key format.`);
              const data = format === "jwk" ? jwkDictionary(keyData) : bytesOf(keyData, "The key data");
              const normalized = normalize("importKey", algorithm);
              const usages = usageList(keyUsages);
              return later(() => importNormalized(format, data, normalized, !!extractable, usages));
            }
            function importNormalized(format, data, normalized, extractable, usages) {
              const { name } = normalized, kind = kinds[name];
              const unsupported = () => failure("NotSupportedError", `${name} keys cannot be imported as ${format}.`);
              if (kind === "secret") {
                if (format !== "raw" && !(format === "jwk" && (name === "HMAC" || name === "AES-GCM"))) throw unsupported();
                onlyUsages(usages, secretUsages[name]);
                if ((name === "HKDF" || name === "PBKDF2") && extractable) throw failure("SyntaxError", `${name} keys cannot be extractable.`);
                let bytes = data;
                if (format === "jwk") {
                  checkJWK(data, "oct", usages, extractable, name === "HMAC" ? "sig" : "enc");
                  bytes = jwkMembers(data, ["k"], ["k"]).k;
                  const length = bytes.length * 8;
                  const expected = name === "AES-GCM" ? `A${length}GCM` : jwkAlgorithms.HMAC[normalized.hash];
                  if (data.alg !== undefined && data.alg !== expected) throw failure("DataError", `The JWK's alg is not ${expected}.`);
                }
                let length = bytes.length * 8;
                if (name === "AES-GCM" && ![128, 192, 256].includes(length)) throw failure("DataError", "AES keys are 128, 192 or 256 bits long.");
                if (name === "HMAC") {
                  if (length === 0) throw failure("DataError", "An HMAC key cannot be empty.");
                  if (normalized.length !== undefined) {
                    if (normalized.length > length || normalized.length <= length - 8) throw failure("DataError", "The HMAC length does not match the key data.");
                    length = normalized.length;
                  }
                }
                if (usages.length === 0) throw failure("SyntaxError", "A secret key needs at least one usage.");
                return call(["import", "secret", "raw", bytes]).then(record =>
                  makeKey("secret", extractable, keyAlgorithm(normalized, { length }), usages, record.handle));
              }
              if (kind === "ec") checkCurve(normalized);
              const [privateAllowed, publicAllowed] = pairUsages[name];
              let material = data, isPrivate;
              if (format === "raw") {
                if (kind === "rsa") throw unsupported();
                isPrivate = false;
              } else if (format === "spki") isPrivate = false;
              else if (format === "pkcs8") isPrivate = true;
              else {
                const use = name === "ECDH" ? "enc" : "sig";
                if (kind === "ec") {
                  checkJWK(data, "EC", usages, extractable, use);
                  if (data.crv !== normalized.namedCurve) throw failure("DataError", `The JWK's crv is not ${normalized.namedCurve}.`);
                  if (name === "ECDSA" && data.alg !== undefined && data.alg !== jwkAlgorithms.ECDSA[normalized.namedCurve]) throw failure("DataError", "The JWK's alg does not match its curve.");
                  material = jwkMembers(data, ["x", "y", "d"], ["x", "y"]);
                } else if (kind === "ed25519") {
                  checkJWK(data, "OKP", usages, extractable, use);
                  if (data.crv !== "Ed25519") throw failure("DataError", "The JWK's crv is not Ed25519.");
                  if (data.alg !== undefined && data.alg !== "Ed25519" && data.alg !== "EdDSA") throw failure("DataError", "The JWK's alg is not Ed25519.");
                  material = jwkMembers(data, ["x", "d"], ["x"]);
                } else {
                  checkJWK(data, "RSA", usages, extractable, use);
                  const expected = jwkAlgorithms[name][normalized.hash];
                  if (data.alg !== undefined && data.alg !== expected) throw failure("DataError", `The JWK's alg is not ${expected}.`);
                  if (data.oth !== undefined) throw failure("NotSupportedError", "Keys of more than two primes are not supported.");
                  const isPrivateJWK = data.d !== undefined;
                  material = jwkMembers(data, ["n", "e", "d", "p", "q", "dp", "dq", "qi"], isPrivateJWK ? ["n", "e", "d", "p", "q"] : ["n", "e"]);
                }
                isPrivate = material.d !== undefined;
              }
              onlyUsages(usages, isPrivate ? privateAllowed : publicAllowed);
              if (isPrivate && usages.length === 0) throw failure("SyntaxError", "A private key needs at least one usage.");
              return call(["import", kind, format, material, normalized.namedCurve]).then(record => {
                if (record.private !== isPrivate) throw failure("DataError", "The key data is not the kind of key its format says.");
                const facts = kind === "rsa" ? { modulusLength: record.modulusLength, publicExponent: record.publicExponent } : {};
                // An imported public key is as extractable as asked (the standard, and WebKit;
                // web-platform-tests expect it always extractable, as other browsers have it).
                return makeKey(isPrivate ? "private" : "public", extractable, keyAlgorithm(normalized, facts), usages, record.handle);
              });
            }

            function exportKey(format, key) {
              atLeast(arguments.length, 2, "exportKey");
              format = String(format);
              if (!["raw", "spki", "pkcs8", "jwk"].includes(format)) throw new TypeError(`'${format}' is not a key format.`);
              const found = asKey(key);
              return later(() => exportFound(format, found));
            }
            function exportFound(format, found) {
              const { name } = found.algorithm;
              if (name === "HKDF" || name === "PBKDF2") throw failure("NotSupportedError", `${name} keys cannot be exported.`);
              if (!found.extractable) throw failure("InvalidAccessError", "The key is not extractable.");
              if (format === "raw" && kinds[name] === "rsa") throw failure("NotSupportedError", "RSA keys cannot be exported as raw.");
              if ((format === "spki" || format === "pkcs8") && kinds[name] === "secret") throw failure("NotSupportedError", `${name} keys cannot be exported as ${format}.`);
              if ((format === "spki" && found.type !== "public") || (format === "pkcs8" && found.type !== "private") || (format === "raw" && found.type === "private")) {
                throw failure("InvalidAccessError", `A ${found.type} key cannot be exported as ${format}.`);
              }
              return call(["export", found.handle, format]).then(result => {
                if (format !== "jwk") return toBuffer(result);
                const jwk = {};
                const kind = kinds[name];
                jwk.kty = kind === "secret" ? "oct" : kind === "ec" ? "EC" : kind === "ed25519" ? "OKP" : "RSA";
                if (kind === "ec") jwk.crv = found.algorithm.namedCurve;
                if (kind === "ed25519") jwk.crv = "Ed25519";
                for (const member of ["n", "e", "x", "y", "d", "p", "q", "dp", "dq", "qi", "k"]) if (result[member] !== undefined) jwk[member] = base64url(result[member]);
                // An EC key's JWK names no `alg` (the Web Cryptography API's export, as WebKit exports it).
                const alg = name === "ECDH" || name === "ECDSA" ? undefined : jwkAlgorithm(name, { namedCurve: found.algorithm.namedCurve, hash: found.algorithm.hash && found.algorithm.hash.name }, found.algorithm.length);
                if (alg !== undefined) jwk.alg = alg;
                jwk.key_ops = [...found.usages];
                jwk.ext = found.extractable;
                // A `JsonWebKey` dictionary becomes an object with its members in WebIDL's order,
                // by name (`crv, ext, key_ops, kty, x, y`), as in WebKit: `JSON.stringify` of it
                // (a DPoP proof's `jwk`, a key compared as text) reads the same on both engines.
                const ordered = {};
                for (const member of Object.keys(jwk).sort()) ordered[member] = jwk[member];
                return ordered;
              });
            }

            function digest(algorithm, data) {
              atLeast(arguments.length, 2, "digest");
              const normalized = normalize("digest", algorithm);
              return call(["digest", normalized.name, bytesOf(data, "The data")]).then(toBuffer);
            }
            // The arguments after the data that sign and verify pass for each algorithm.
            const signatureParameters = (normalized, found) => {
              switch (normalized.name) {
                case "ECDSA": return [normalized.hash];
                case "RSA-PSS": return [found.algorithm.hash.name, normalized.saltLength];
                case "Ed25519": return [];
                default: return [found.algorithm.hash.name];
              }
            };
            function sign(algorithm, key, data) {
              atLeast(arguments.length, 3, "sign");
              const normalized = normalize("sign", algorithm);
              const bytes = bytesOf(data, "The data"), found = asKey(key);
              return later(() => {
                checkKey(found, normalized.name, "sign");
                return call(["sign", normalized.name, found.handle, bytes, ...signatureParameters(normalized, found)]).then(toBuffer);
              });
            }
            function verify(algorithm, key, signature, data) {
              atLeast(arguments.length, 4, "verify");
              const normalized = normalize("verify", algorithm);
              const signatureBytes = bytesOf(signature, "The signature"), bytes = bytesOf(data, "The data"), found = asKey(key);
              return later(() => {
                checkKey(found, normalized.name, "verify");
                return call(["verify", normalized.name, found.handle, signatureBytes, bytes, ...signatureParameters(normalized, found)]);
              });
            }
            const crypt = (operation, normalized, found, bytes) => {
              if (![32, 64, 96, 104, 112, 120, 128].includes(normalized.tagLength)) throw failure("OperationError", "The tagLength is not one AES-GCM has.");
              return call([operation, normalized.name, found.handle, normalized.iv, normalized.additionalData, normalized.tagLength, bytes]).then(toBuffer);
            };
            function encrypt(algorithm, key, data) {
              atLeast(arguments.length, 3, "encrypt");
              const normalized = normalize("encrypt", algorithm);
              const bytes = bytesOf(data, "The data"), found = asKey(key);
              return later(() => crypt("encrypt", normalized, checkKey(found, normalized.name, "encrypt"), bytes));
            }
            function decrypt(algorithm, key, data) {
              atLeast(arguments.length, 3, "decrypt");
              const normalized = normalize("decrypt", algorithm);
              const bytes = bytesOf(data, "The data"), found = asKey(key);
              return later(() => crypt("decrypt", normalized, checkKey(found, normalized.name, "decrypt"), bytes));
            }
            // The arguments of a derivation after the length.
            const derivationParameters = (normalized, found) => {
              switch (normalized.name) {
                case "HKDF": return [normalized.hash, normalized.salt, normalized.info];
                case "PBKDF2": return [normalized.hash, normalized.salt, normalized.iterations];
                default: {
                  const peer = internal(normalized.public);
                  if (peer.type !== "public") throw failure("InvalidAccessError", "ECDH's public is not a public key.");
                  if (peer.algorithm.name !== "ECDH" || peer.algorithm.namedCurve !== found.algorithm.namedCurve) {
                    throw failure("InvalidAccessError", "ECDH's public is not an ECDH key on the same curve.");
                  }
                  return [peer.handle];
                }
              }
            };
            const derivedBits = (operation, normalized, found, length) => {
              if (normalized.name !== "ECDH" && (length === null || length % 8 !== 0)) throw failure("OperationError", `${normalized.name} derives a length that is a multiple of 8.`);
              return call([operation, normalized.name, found.handle, length === null ? -1 : length, ...derivationParameters(normalized, found)]);
            };
            function deriveBits(algorithm, baseKey, length = null) {
              atLeast(arguments.length, 2, "deriveBits");
              const normalized = normalize("deriveBits", algorithm);
              length = length === null ? null : enforce(length, 0xFFFFFFFF, "length");
              const found = asKey(baseKey);
              return later(() => derivedBits("deriveBits", normalized, checkKey(found, normalized.name, "deriveBits"), length).then(toBuffer));
            }
            function deriveKey(algorithm, baseKey, derivedKeyType, extractable, keyUsages) {
              atLeast(arguments.length, 5, "deriveKey");
              const normalized = normalize("deriveBits", algorithm);
              const derived = normalize("importKey", derivedKeyType);
              const lengthOf = normalize("getKeyLength", derivedKeyType);
              const usages = usageList(keyUsages);
              extractable = !!extractable;
              const found = asKey(baseKey);
              return later(() => {
                checkKey(found, normalized.name, "deriveKey");
                const length = secretLength(lengthOf);
                onlyUsages(usages, secretUsages[derived.name]);
                if (usages.length === 0) throw failure("SyntaxError", "A secret key needs at least one usage.");
                return derivedBits("deriveKey", normalized, found, length).then(handle =>
                  makeKey("secret", extractable, keyAlgorithm(derived, { length }), usages, handle));
              });
            }
            function wrapKey(format, key, wrappingKey, wrapAlgorithm) {
              atLeast(arguments.length, 4, "wrapKey");
              format = String(format);
              if (!["raw", "spki", "pkcs8", "jwk"].includes(format)) throw new TypeError(`'${format}' is not a key format.`);
              const normalized = normalize("encrypt", wrapAlgorithm);
              const wrapping = asKey(wrappingKey), found = asKey(key);
              return later(() => {
                checkKey(wrapping, normalized.name, "wrapKey");
                return exportFound(format, found);
              }).then(exported => {
                const bytes = format === "jwk" ? encode(JSON.stringify(exported)) : new Uint8Array(exported);
                return crypt("encrypt", normalized, wrapping, bytes);
              });
            }
            function unwrapKey(format, wrappedKey, unwrappingKey, unwrapAlgorithm, unwrappedKeyAlgorithm, extractable, keyUsages) {
              atLeast(arguments.length, 7, "unwrapKey");
              format = String(format);
              if (!["raw", "spki", "pkcs8", "jwk"].includes(format)) throw new TypeError(`'${format}' is not a key format.`);
              const bytes = bytesOf(wrappedKey, "The wrapped key");
              const normalized = normalize("decrypt", unwrapAlgorithm);
              const imported = normalize("importKey", unwrappedKeyAlgorithm);
              const usages = usageList(keyUsages);
              const unwrapping = asKey(unwrappingKey);
              return later(() => crypt("decrypt", normalized, checkKey(unwrapping, normalized.name, "unwrapKey"), bytes)).then(plain => {
                let data = new Uint8Array(plain);
                if (format === "jwk") {
                  try { data = jwkDictionary(JSON.parse(text(decodeUTF8(data, true, false)[0]))); }
                  catch { throw failure("DataError", "The unwrapped key is not a JSON Web Key."); }
                }
                return importNormalized(format, data, imported, !!extractable, usages);
              });
            }

            class SubtleCrypto {
              constructor() { throw new TypeError("Illegal constructor"); }
            }
            const operations = { encrypt, decrypt, sign, verify, digest, generateKey, deriveKey, deriveBits, importKey, exportKey, wrapKey, unwrapKey };
            for (const [name, body] of Object.entries(operations)) {
              const wrapped = { [name](...given) { return promised(() => body.apply(undefined, given)); } }[name];
              define(wrapped, "length", { value: body.length, configurable: true });
              method(SubtleCrypto.prototype, name, wrapped);
            }
            define(SubtleCrypto.prototype, Symbol.toStringTag, { value: "SubtleCrypto", configurable: true });
            const subtle = Object.create(SubtleCrypto.prototype);
            define(crypto, "subtle", { get: () => subtle, enumerable: true, configurable: true });
            // structuredClone's: a new key over a native copy of the material.
            const cloneKey = key => {
              const found = internal(key);
              return makeKey(found.type, found.extractable, copy(found.algorithm), [...found.usages], native.platform("copyKey", found.handle));
            };
            // IndexedDB's: a key's parts (its material stays behind the handle), and a key made
            // again from them.
            const storedKey = key => {
              const found = internal(key);
              return found === undefined ? undefined
                : { type: found.type, extractable: found.extractable, algorithm: copy(found.algorithm), usages: [...found.usages], handle: found.handle };
            };
            return { CryptoKey, SubtleCrypto, cloneKey, storedKey, restoredKey: makeKey };
          })();
        """#
}
