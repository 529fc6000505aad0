import ArgumentParser
import Foundation
import SessionBridge
import SessionBridgeOAuth

/// The authorization server and client settings `run` and `login` share: flags, or the same
/// settings in a `--config` JSON file (flags win).
struct AuthorizationServerOptions: ParsableArguments {
    @Option(help: "A JSON file with these settings (keys as the flags without dashes, '-' as '_'; 'params' an object).")
    var config: String?

    @Option(help: "The issuer: its discovery document gives the endpoints explicit flags do not.")
    var issuer: String?

    @Option(help: "The token endpoint (overrides discovery).")
    var tokenEndpoint: String?

    @Option(help: "The authorization endpoint (overrides discovery).")
    var authorizationEndpoint: String?

    @Option(help: "The revocation endpoint (overrides discovery).")
    var revocationEndpoint: String?

    @Option(help: "The registered client id.")
    var clientID: String?

    @Option(help: "The client secret (visible in the process list: prefer --client-secret-file or SESSIONBRIDGE_CLIENT_SECRET).")
    var clientSecret: String?

    @Option(help: "A file holding the client secret.")
    var clientSecretFile: String?

    @Option(
        help:
            "none | client_secret_basic | client_secret_post | private_key_jwt (default: client_secret_basic with a secret, private_key_jwt with a key, else none)."
    )
    var clientAuth: String?

    @Option(help: "The client's private key (PEM, P-256 or RSA) for private_key_jwt; or SESSIONBRIDGE_CLIENT_KEY holding the PEM.")
    var clientKey: String?

    @Option(
        help:
            "The aud of a private_key_jwt assertion: token-endpoint (the default), endpoint (each endpoint's own URL, as Okta wants) or issuer (as Auth0 wants)."
    )
    var clientAssertionAudience: String?

    @Option(help: "The scope to ask for, such as \"openid offline_access\".")
    var scope: String?

    @Option(help: "An RFC 8707 resource indicator (repeatable).")
    var resource: [String] = []

    @Option(
        name: .customLong("param"),
        help: "An extra parameter for the provider, NAME=VALUE (repeatable), such as audience=https://api.example.")
    var parameters: [String] = []

    @Option(help: "The registered redirect URI: sign in with the authorization code flow and PKCE instead of the password grant.")
    var redirectURI: String?

    /// The settings after the config file and the flags are merged.
    struct Settings {
        var issuer: URL?
        var tokenEndpoint: URL?
        var authorizationEndpoint: URL?
        var revocationEndpoint: URL?
        var clientID: String?
        var clientAuthentication: ClientAuthentication = .none
        var assertionAudience = ClientAssertionAudience.tokenEndpoint
        var scope: String?
        var resources: [URL] = []
        var parameters: [String: String] = [:]
        var redirectURI: URL?
        var server: String?
        var user: String?
        var passwordFile: String?
        var refreshTokenFile: String?

        /// Whether anything beyond `--server` was configured.
        var describesAuthorizationServer: Bool { issuer != nil || tokenEndpoint != nil || clientID != nil }
    }

    /// Reads the config file, then the flags over it, then the secrets.
    func settings() throws -> Settings {
        let file = try config.map(Self.readConfig) ?? [:]
        func string(_ flag: String?, _ key: String) -> String? { flag ?? file[key] as? String }
        func url(_ flag: String?, _ key: String) throws -> URL? {
            guard let text = string(flag, key) else { return nil }
            guard let url = URL(string: text), url.scheme != nil else {
                throw ValidationError("--\(key.replacingOccurrences(of: "_", with: "-")) \(text) is not an absolute URL")
            }
            return url
        }
        var settings = Settings()
        settings.issuer = try url(issuer, "issuer")
        if let issuer = settings.issuer, issuer.host == nil { throw ValidationError("--issuer must be an https (or http) URL") }
        settings.tokenEndpoint = try url(tokenEndpoint, "token_endpoint")
        settings.authorizationEndpoint = try url(authorizationEndpoint, "authorization_endpoint")
        settings.revocationEndpoint = try url(revocationEndpoint, "revocation_endpoint")
        settings.clientID = string(clientID, "client_id")
        settings.scope = string(scope, "scope")
        let resources = resource.isEmpty ? ((file["resource"] as? [String]) ?? (file["resource"] as? String).map { [$0] } ?? []) : resource
        settings.resources = try resources.map { text in
            guard let url = URL(string: text), url.scheme != nil else { throw ValidationError("--resource \(text) is not an absolute URL") }
            return url
        }
        for (name, value) in (file["params"] as? [String: Any]) ?? [:] { settings.parameters[name] = "\(value)" }
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--param \(parameter) is not NAME=VALUE") }
            settings.parameters[String(parts[0])] = String(parts[1])
        }
        settings.redirectURI = try url(redirectURI, "redirect_uri")
        settings.server = file["server"] as? String
        settings.user = file["user"] as? String
        settings.passwordFile = file["password_file"] as? String
        settings.refreshTokenFile = file["refresh_token_file"] as? String
        settings.clientAuthentication = try clientAuthentication(file: file, clientID: settings.clientID)
        if let audience = string(clientAssertionAudience, "client_assertion_audience") {
            guard let parsed = ClientAssertionAudience(rawValue: audience) else {
                let names = ClientAssertionAudience.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--client-assertion-audience must be one of \(names)")
            }
            guard case .privateKeyJWT = settings.clientAuthentication else {
                throw ValidationError("--client-assertion-audience is for --client-auth private_key_jwt")
            }
            settings.assertionAudience = parsed
        }
        if settings.clientID == nil, settings.clientAuthentication.methodName != "none" {
            throw ValidationError("--client-auth \(settings.clientAuthentication.methodName) needs --client-id")
        }
        return settings
    }

    private func clientAuthentication(file: [String: Any], clientID: String?) throws -> ClientAuthentication {
        let method = clientAuth ?? file["client_auth"] as? String
        let keyPath = clientKey ?? file["client_key"] as? String
        let secretFile = clientSecretFile ?? file["client_secret_file"] as? String
        let methods = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]
        if let method, !methods.contains(method) {
            throw ValidationError("--client-auth must be one of \(methods.joined(separator: ", "))")
        }
        // Two credentials on the command line: one would win unseen (a flag still overrides the
        // config file's setting).
        if clientSecret != nil && clientSecretFile != nil {
            throw ValidationError("give the client secret once: --client-secret or --client-secret-file")
        }
        if clientKey != nil && (clientSecret != nil || clientSecretFile != nil) {
            throw ValidationError("give one client credential: --client-key (private_key_jwt) or a client secret")
        }
        let wantsKey = method == "private_key_jwt" || (method == nil && keyPath != nil)
        if wantsKey {
            let pem: String
            if let keyPath {
                pem = try SecretSource.contents(of: keyPath, what: "client key")
            } else if let text = ProcessInfo.processInfo.environment["SESSIONBRIDGE_CLIENT_KEY"], !text.isEmpty {
                pem = text
            } else {
                throw ValidationError("private_key_jwt needs --client-key FILE.pem (or SESSIONBRIDGE_CLIENT_KEY)")
            }
            do {
                return .privateKeyJWT(try ClientPrivateKey(pem: pem))
            } catch {
                throw RunnerFailure(description: "the client key: \(error.message)", exitCode: .badArguments)
            }
        }
        if method == "none" { return .none }
        let secretValue = clientSecret ?? file["client_secret"] as? String
        // A prompt only when a secret method was asked for by name.
        let mayPrompt = method == "client_secret_basic" || method == "client_secret_post"
        let secret =
            mayPrompt || secretValue != nil || secretFile != nil
            ? try SecretSource.read(
                value: secretValue, file: secretFile, environment: "SESSIONBRIDGE_CLIENT_SECRET",
                prompt: "client secret for \(clientID ?? "the client")")
            : ProcessInfo.processInfo.environment["SESSIONBRIDGE_CLIENT_SECRET"]
        guard let secret, !secret.isEmpty else {
            if mayPrompt {
                throw ValidationError("\(method ?? "") needs --client-secret-file, SESSIONBRIDGE_CLIENT_SECRET or --client-secret")
            }
            return .none
        }
        return method == "client_secret_post" ? .clientSecretPost(Secret(secret)) : .clientSecretBasic(Secret(secret))
    }

    static func readConfig(_ path: String) throws -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RunnerFailure(description: "cannot read the config file \(path)", exitCode: .missingInput)
        }
        guard let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw RunnerFailure(description: "the config file \(path) is not a JSON object", exitCode: .badArguments)
        }
        // A setting misspelled or of another type would be ignored unseen (a numeric secret
        // left the client without authentication): each is checked against what it may be.
        for (key, value) in json.sorted(by: { $0.key < $1.key }) {
            guard let kind = configKeys[key] else {
                let known = configKeys.keys.sorted().joined(separator: ", ")
                throw RunnerFailure(
                    description: "the config file \(path) has an unknown setting \"\(key)\" (known: \(known))", exitCode: .badArguments)
            }
            let fits =
                switch kind {
                case .string: value is String
                case .strings: value is String || (value as? [Any])?.allSatisfy { $0 is String } == true
                case .object: value is [String: Any]
                }
            guard fits else {
                throw RunnerFailure(description: "the config file \(path): \"\(key)\" must be \(kind.rawValue)", exitCode: .badArguments)
            }
        }
        return json
    }

    /// What a config file's setting may hold.
    enum ConfigValue: String {
        case string = "a string"
        case strings = "a string or a list of strings"
        case object = "an object"
    }

    /// The config file's settings, by name.
    static let configKeys: [String: ConfigValue] = [
        "issuer": .string, "token_endpoint": .string, "authorization_endpoint": .string, "revocation_endpoint": .string,
        "client_id": .string, "scope": .string, "resource": .strings, "params": .object, "redirect_uri": .string, "server": .string,
        "user": .string, "password_file": .string, "refresh_token_file": .string, "client_auth": .string, "client_key": .string,
        "client_secret": .string, "client_secret_file": .string, "client_assertion_audience": .string,
    ]
}

extension AuthorizationServerOptions.Settings {
    /// The session's configuration: an authorization server described by these settings, with
    /// `server` (the web product) as the session's origin; or `server`'s usual endpoints when
    /// nothing else was given.
    func sessionConfiguration(server: URL) -> SessionConfiguration {
        guard describesAuthorizationServer else {
            var configuration = SessionConfiguration(server: server)
            configuration.scope = scope
            configuration.resources = resources
            configuration.additionalParameters = parameters
            return configuration
        }
        var configuration: SessionConfiguration
        if let issuer {
            configuration = SessionConfiguration(
                issuer: issuer, clientID: clientID ?? "", clientAuthentication: clientAuthentication, scope: scope,
                redirectURI: redirectURI, sessionURL: server, tokenEndpoint: tokenEndpoint, authorizationEndpoint: authorizationEndpoint,
                revocationEndpoint: revocationEndpoint)
            if clientID == nil { configuration.clientID = nil }
        } else {
            configuration = SessionConfiguration(
                tokenEndpoint: tokenEndpoint ?? URL(string: "/oauth/token", relativeTo: server)!.absoluteURL,
                revocationEndpoint: revocationEndpoint
                    ?? (tokenEndpoint == nil ? URL(string: "/oauth/revoke", relativeTo: server)!.absoluteURL : nil),
                clientID: clientID, clientAuthentication: clientAuthentication, scope: scope, sessionURL: server)
            configuration.authorizationServer.authorizationEndpoint = authorizationEndpoint
            configuration.redirectURI = redirectURI
        }
        configuration.resources = resources
        configuration.additionalParameters = parameters
        configuration.assertionAudience = assertionAudience
        return configuration
    }
}
