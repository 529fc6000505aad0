import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// The file a persistent store's caches are saved to (`<profile>.cachestorage`).
@Suite(.timeLimit(.minutes(1))) struct CacheStoragesFileTests {
    @Test func savedCachesAreReadBackAndADamagedFileIsKeptAside() throws {
        let directory = try TestDirectory.make(prefix: "cachestorage-file")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("page.cachestorage")
        let origin = try #require(SecurityOrigin("https://app.example"))
        let first = CacheStorages(file: file)
        let id = try #require(first.cacheID("v1", forOrigin: origin, creating: true))
        let head: [ScriptValue] = [
            "https://app.example/a", "GET", [], 200, "OK", "basic", [["x-kind", "asset"]], false, "https://app.example/a",
        ]
        #expect(first.change(cache: id, forOrigin: origin, removing: [], adding: [(head, [1, 2, 3])]) == .done)
        _ = first.cacheID("v2", forOrigin: origin, creating: true)
        first.flush()
        #expect(first.saveError == nil)
        #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) == 0o600)

        let second = CacheStorages(file: file)
        #expect(second.loadWarning == nil)
        #expect(second.names(forOrigin: origin) == ["v1", "v2"])
        let readID = try #require(second.cacheID("v1", forOrigin: origin, creating: false))
        let heads = try #require(second.heads(ofCache: readID, forOrigin: origin))
        #expect(heads.map { Array($0.dropFirst()) } == [head])
        let entry = try #require(heads.first?.first?.numberValue)
        #expect(second.body(ofEntry: Int(entry), inCache: readID, forOrigin: origin) == [1, 2, 3])

        // A head of another shape is not this store's file: kept aside, the caches start empty.
        try Data(#"{"version": 1, "origins": {"https://app.example": [["v1", [[["/a", "GET"], "AQID"]]]]}}"#.utf8).write(to: file)
        let damaged = CacheStorages(file: file)
        #expect(damaged.loadWarning?.contains("page.cachestorage.corrupt") == true)
        #expect(damaged.names(forOrigin: origin).isEmpty)
        #expect(FileManager.default.fileExists(atPath: file.path + ".corrupt"))
    }
}
