public import Foundation
public import SessionBridgeCookies
import SessionBridgeScriptEngine
import Synchronization

/// Where a page keeps its cookies: a shared jar, a non-persistent one, or a named profile.
/// (WebKit's `WKWebsiteDataStore`.)
///
/// Several pages given the same store share its cookies, as web views sharing a data store do.
/// A profile is live once per process: opening a profile that is already open (here or through
/// another ``WebsiteDataStore`` instance) gives the same cookies and the same file writer, so
/// two stores never overwrite each other's file.
public final class WebsiteDataStore: Sendable {
    /// The cookies.
    public let cookieJar: CookieJar
    /// The cookies as pages and a session owner reach them. (WebKit's `httpCookieStore`.)
    public let httpCookieStore: CookieJarStore
    /// The pages' `localStorage`, one area per origin, shared by every page using this store; a
    /// persistent store saves it next to its cookies (`<profile>.localstorage`).
    public let localStorage: WebStorage
    /// The pages' IndexedDB databases, one set per origin, shared by every page using this
    /// store; a persistent store saves them next to its cookies (`<profile>.indexeddb`).
    public let indexedDatabases: IndexedDatabases
    /// The pages' Cache Storage (`caches`), one set of caches per origin, shared by every page
    /// using this store; a persistent store saves them next to its cookies (`<profile>.cachestorage`).
    public let cacheStorages: CacheStorages
    /// The `BroadcastChannel`s between the pages using this store.
    let broadcastChannels: BroadcastChannels
    /// How many dedicated workers the store's pages run now, each on a thread of its own, or
    /// are starting (``PageWorker``).
    let workerThreads = Atomic<Int>(0)
    /// The shared workers its pages run.
    let sharedWorkers = SharedWorkers()
    /// The `MessagePort`s its pages and their workers entangled across contexts.
    let messagePorts = MessagePortPipes()
    /// The blob URLs its documents and workers made, which the origin's other contexts read.
    let blobURLs = BlobURLRegistry()
    /// The Web Locks of the pages using this store.
    let webLocks: WebLocks
    /// What servers' CORS preflights allowed the pages using this store.
    let preflights: CORSPreflightCache
    /// Whether the cookies outlive the process.
    public var isPersistent: Bool { attachment != nil }
    /// The profile file the cookies are saved to, for a persistent store.
    public let attachment: CookieStoreAttachment?
    /// The open profile this store keeps alive, for a persistent store.
    private let live: LiveProfile?

    /// A store over `cookieJar` (share one store between pages to share their cookies).
    public init(cookieJar: CookieJar = WebsiteDataStore.makeCookieJar()) {
        self.cookieJar = cookieJar
        self.httpCookieStore = CookieJarStore(cookieJar)
        self.localStorage = WebStorage()
        self.indexedDatabases = IndexedDatabases()
        self.cacheStorages = CacheStorages()
        self.broadcastChannels = BroadcastChannels()
        self.webLocks = WebLocks()
        self.preflights = CORSPreflightCache()
        self.attachment = nil
        self.live = nil
    }

    /// A persistent store: the named profile in `directory` is loaded now (a damaged file
    /// falls back to its last good copy, reported in `attachment.loadResult.warning`), and
    /// every change is saved crash-safely, behind the page that made it
    /// (``CookieStoreAttachment/SaveMode/behind``: a page's cookie write never waits for the
    /// disk; `attachment.flush()` waits for the writes). If the profile is already open in this process, the
    /// store shares that profile's cookies and writer instead of loading it again.
    public init(directory: URL, profile: String = "default", includeSessionCookies: Bool = false) throws(CookieStoreError) {
        let live = try Self.profiles.open(directory: directory, profile: profile, includeSessionCookies: includeSessionCookies)
        self.cookieJar = live.jar
        self.httpCookieStore = live.store
        self.localStorage = live.localStorage
        self.indexedDatabases = live.indexedDatabases
        self.cacheStorages = live.cacheStorages
        self.broadcastChannels = live.broadcastChannels
        self.webLocks = live.webLocks
        self.preflights = live.preflights
        self.attachment = live.attachment
        self.live = live
    }

    /// A jar that keeps what WebKit's cookie store keeps: a `SameSite=None` cookie without
    /// `Secure` too (RFC 6265bis refuses it, as Chrome and Firefox do; WebKit does not), and
    /// any number of cookies of one domain (``CookieJarLimits/webKit``).
    public static func makeCookieJar() -> CookieJar {
        CookieJar(limits: .webKit, sameSiteNoneRequiresSecure: false)
    }

    /// A fresh store whose cookies live only as long as it does.
    public static func nonPersistent() -> WebsiteDataStore {
        WebsiteDataStore(cookieJar: makeCookieJar())
    }

    /// The process's default store: one non-persistent store every caller shares, as web views
    /// created without a store of their own share WebKit's default store.
    public static func `default`() -> WebsiteDataStore {
        defaultStore
    }

    private static let defaultStore = WebsiteDataStore()

    /// Whether `other` holds the same cookies (the same jar).
    public func isSameStore(as other: WebsiteDataStore) -> Bool {
        cookieJar === other.cookieJar
    }

    /// Removes every cookie, every `localStorage` item, every IndexedDB database and every
    /// cache of Cache Storage (the
    /// "clear all web data on logout" of earlier designs). As in WebKit, the pages' open
    /// IndexedDB connections are closed (a `close` event): none writes back what it had read.
    public func removeAllData() {
        cookieJar.removeAll()
        localStorage.removeAll()
        indexedDatabases.removeAll()
        cacheStorages.removeAll()
        preflights.removeAll()
        // The IndexedDB platform's own channel, its message in the wire form of `{cleared: true}`.
        broadcastChannels.postToEveryDocument(
            BroadcastChannels.Message(name: "\u{0}indexedDB", data: .string(#"["o",[["cleared",true]]]"#), origin: "null"))
    }

    // MARK: Live profiles

    /// One open profile: its jar, the writer attached to its file, the store view.
    final class LiveProfile: Sendable {
        let jar: CookieJar
        let store: CookieJarStore
        let attachment: CookieStoreAttachment
        let localStorage: WebStorage
        let indexedDatabases: IndexedDatabases
        let cacheStorages: CacheStorages
        let broadcastChannels = BroadcastChannels()
        let webLocks = WebLocks()
        let preflights = CORSPreflightCache()

        init(
            jar: CookieJar, attachment: CookieStoreAttachment, localStorage: WebStorage, indexedDatabases: IndexedDatabases,
            cacheStorages: CacheStorages
        ) {
            self.jar = jar
            self.store = CookieJarStore(jar)
            self.attachment = attachment
            self.localStorage = localStorage
            self.indexedDatabases = indexedDatabases
            self.cacheStorages = cacheStorages
        }
    }

    /// Open profiles by file path, held weakly: a profile closes when its last store goes away.
    final class ProfileRegistry: Sendable {
        private struct Entry {
            weak var profile: LiveProfile?
        }

        private let entries = Mutex<[String: Entry]>([:])

        func open(directory: URL, profile: String, includeSessionCookies: Bool) throws(CookieStoreError) -> LiveProfile {
            let persistent = PersistentCookieStore(directory: directory, profile: profile)
            let key = persistent.fileURL?.standardizedFileURL.path ?? directory.path + "/" + profile
            if let live = entries.withLock({ $0[key]?.profile }) { return live }
            // The writes of the profile's last opening, still behind it, land first; waited for
            // outside the lock, so that opening another profile never waits for this file.
            CookieStoreAttachment.flushNow(persistent)
            return try entries.withLock { entries throws(CookieStoreError) -> LiveProfile in
                if let live = entries[key]?.profile { return live }
                let jar = WebsiteDataStore.makeCookieJar()
                let attachment = try jar.attach(to: persistent, mode: .behind, includeSessionCookies: includeSessionCookies)
                let storage = WebStorage(file: directory.appendingPathComponent(profile + ".localstorage"))
                let databases = IndexedDatabases(file: directory.appendingPathComponent(profile + ".indexeddb"))
                let caches = CacheStorages(file: directory.appendingPathComponent(profile + ".cachestorage"))
                let live = LiveProfile(
                    jar: jar, attachment: attachment, localStorage: storage, indexedDatabases: databases, cacheStorages: caches)
                entries = entries.filter { $0.value.profile != nil }
                entries[key] = Entry(profile: live)
                return live
            }
        }
    }

    static let profiles = ProfileRegistry()
}
