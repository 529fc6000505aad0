import Foundation
import Hummingbird
import JWTKit
import SessionBridgeOAuth
import Synchronization

/// How the token and revocation endpoints authenticate registered clients.
extension ServerCore {
    /// The outcome of checking a request's client.
    enum ClientCheck {
        /// The client, or `nil` when clients are not registered and none was named.
        case authenticated(String?)
        case refused(Response)
    }

    /// The id the request names (Basic user or form `client_id`), form-urldecoded.
    static func presentedClient(form: [String: String], request: Request) -> (id: String?, basicSecret: String?) {
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8)
        {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let id = HTTPHelpers.decodeFormComponent(parts[0])
            let secret = parts.count > 1 ? HTTPHelpers.decodeFormComponent(parts[1]) : ""
            return (id, secret)
        }
        return (form["client_id"], nil)
    }

    /// Authenticates the request's client as it is registered.
    func authenticateClient(form: [String: String], request: Request) async -> ClientCheck {
        let (presentedID, basicSecret) = Self.presentedClient(form: form, request: request)
        guard !self.configuration.clients.isEmpty else {
            if let expected = self.configuration.clientID, presentedID != expected { return .refused(self.invalidClient()) }
            return .authenticated(presentedID)
        }
        guard let id = presentedID, let client = self.configuration.clients.first(where: { $0.id == id }) else {
            return .refused(self.invalidClient())
        }
        if let formID = form["client_id"], formID != id { return .refused(self.invalidClient()) }
        switch client.authentication {
        case .none:
            guard basicSecret == nil, form["client_secret"] == nil, form["client_assertion"] == nil else {
                return .refused(self.invalidClient())
            }
        case .clientSecretBasic(let secret):
            guard let basicSecret, Self.constantTimeEquals(basicSecret, secret) else { return .refused(self.invalidClient()) }
        case .clientSecretPost(let secret):
            guard basicSecret == nil, let posted = form["client_secret"], Self.constantTimeEquals(posted, secret) else {
                return .refused(self.invalidClient())
            }
        case .privateKeyJWT(let publicKeyPEM):
            guard form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                let assertion = form["client_assertion"]
            else { return .refused(self.invalidClient("A client_assertion is required.")) }
            if let reason = await self.checkAssertion(assertion, clientID: id, publicKeyPEM: publicKeyPEM) {
                return .refused(self.invalidClient(reason))
            }
        }
        if let grant = form["grant_type"], !client.grantTypes.contains(grant) {
            return .refused(self.oauthError("unauthorized_client", "The client may not use this grant type."))
        }
        return .authenticated(id)
    }

    struct AssertionPayload: JWTPayload {
        func verify(using algorithm: some JWTAlgorithm) async throws {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }

    /// Checks a client assertion (RFC 7523 §3): signature, `iss` = `sub` = client, `aud`
    /// naming the token endpoint or the issuer, `exp` in the future and at most five minutes
    /// away, `jti` never seen. Returns why it is refused, or `nil`.
    func checkAssertion(_ assertion: String, clientID: String, publicKeyPEM: String) async -> String? {
        let keys = JWTKeyCollection()
        if let key = try? ES256PublicKey(pem: publicKeyPEM) {
            await keys.add(ecdsa: key)
        } else if let key = try? JWTKit.Insecure.RSA.PublicKey(pem: publicKeyPEM) {
            await keys.add(rsa: key, digestAlgorithm: .sha256)
        } else {
            return "The registered key is unusable."
        }
        guard (try? await keys.verify(assertion, as: AssertionPayload.self)) != nil else {
            return "The client assertion's signature is invalid."
        }
        let parts = assertion.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(parts[1]),
            let claims = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return "The client assertion is malformed." }
        guard claims["iss"] as? String == clientID, claims["sub"] as? String == clientID else {
            return "The client assertion's iss and sub must be the client id."
        }
        let issuer = self.issuer.withLock { $0 }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? ((claims["aud"] as? [Any])?.compactMap { $0 as? String } ?? [])
        guard audiences.contains(where: { [issuer, issuer + "/oauth/token", issuer + "/oauth/token-moved"].contains($0) }) else {
            return "The client assertion's aud must be the token endpoint."
        }
        let now = Date().timeIntervalSince1970
        guard let exp = (claims["exp"] as? NSNumber)?.doubleValue else { return "The client assertion has no exp." }
        guard exp > now else { return "The client assertion has expired." }
        guard exp < now + 300 else { return "The client assertion lives too long." }
        guard let jti = claims["jti"] as? String, !jti.isEmpty else { return "The client assertion has no jti." }
        let replayed = self.withState { state -> Bool in
            state.usedAssertionIDs = state.usedAssertionIDs.filter { $0.value.timeIntervalSince1970 > now }
            if state.usedAssertionIDs[jti] != nil { return true }
            state.usedAssertionIDs[jti] = Date(timeIntervalSince1970: exp)
            return false
        }
        return replayed ? "The client assertion was already used (jti)." : nil
    }

    func invalidClient(_ description: String = "Client authentication failed.") -> Response {
        self.oauthError("invalid_client", description, status: .unauthorized, extraHeaders: [.wwwAuthenticate: "Basic realm=\"reference\""])
    }
}
