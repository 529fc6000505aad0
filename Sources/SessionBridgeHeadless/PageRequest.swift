public import Foundation

/// A request a page sends: what a navigation or `fetch` asks for.
public struct PageRequest: Sendable, Hashable {
    public var url: URL
    public var method: String
    /// Header fields in order; repeated names stay separate.
    public var headers: [HTTPHeader]
    public var body: [UInt8]?

    public init(url: URL, method: String = "GET", headers: [HTTPHeader] = [], body: [UInt8]? = nil) {
        self.url = url
        // Browsers normalise the case of the six standard methods only.
        self.method = FetchRequestRules.normalizedMethods.contains(method.uppercased()) ? method.uppercased() : method
        self.headers = headers
        self.body = body
    }
}
