// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "SessionBridge",
    // Linux only today: JavaScriptCore and WebKitGTK come from Debian packages.
    products: [
        .library(name: "SessionBridgeScriptEngine", targets: ["SessionBridgeScriptEngine"]),
        .library(name: "SessionBridgeCookies", targets: ["SessionBridgeCookies"]),
        .library(name: "SessionBridgeMessaging", targets: ["SessionBridgeMessaging"]),
        .library(name: "SessionBridgeHTTP", targets: ["SessionBridgeHTTP"]),
        .library(name: "SessionBridgeHeadless", targets: ["SessionBridgeHeadless"]),
        .library(name: "SessionBridgeOAuth", targets: ["SessionBridgeOAuth"]),
        .library(name: "SessionBridge", targets: ["SessionBridge"]),
        .library(name: "SessionBridgeTesting", targets: ["SessionBridgeTesting"]),
        .executable(name: "bridge-runner", targets: ["bridge-runner"]),
        .library(name: "SessionBridgeWebKit", targets: ["SessionBridgeWebKit"]),
        // Loaded by WebKit into its web processes (ship it beside the app's executable): WebKit's
        // own console lines for the WebKit engine.
        .library(name: "SessionBridgeWebProcessExtension", type: .dynamic, targets: ["SessionBridgeWebProcessExtension"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
    ],
    targets: [
        // MARK: Layers, bottom up
        .systemLibrary(
            name: "CJavaScriptCore",
            pkgConfig: "javascriptcoregtk-4.1",
            providers: [.apt(["libjavascriptcoregtk-4.1-dev"])]
        ),
        .target(
            name: "SessionBridgeScriptEngine",
            dependencies: [
                "CJavaScriptCore",
                .product(name: "Collections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "SessionBridgeCookies",
            dependencies: [
                .product(name: "Collections", package: "swift-collections")
            ],
            resources: [.copy("Resources/public_suffix_list.dat")]
        ),
        .target(
            name: "SessionBridgeMessaging",
            dependencies: [
                .product(name: "OrderedCollections", package: "swift-collections"),
                "SessionBridgeScriptEngine",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The HTTP client's guards and retries the layers above share.
        .target(
            name: "SessionBridgeHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "SessionBridgeHeadless",
            dependencies: [
                "CZlib",
                .product(name: "OrderedCollections", package: "swift-collections"),
                "SessionBridgeScriptEngine", "SessionBridgeCookies", "SessionBridgeMessaging", "SessionBridgeHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        .target(
            name: "SessionBridgeOAuth",
            dependencies: [
                "SessionBridgeHTTP",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "SessionBridge",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "SessionBridgeScriptEngine", "SessionBridgeCookies", "SessionBridgeMessaging", "SessionBridgeHeadless",
                "SessionBridgeOAuth", "SessionBridgeHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Scripts")]
        ),
        .target(
            name: "SessionBridgeTesting",
            dependencies: [
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "SessionBridgeScriptEngine", "SessionBridgeCookies", "SessionBridgeMessaging", "SessionBridgeHeadless", "SessionBridge",
                "SessionBridgeOAuth",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        .executableTarget(
            name: "bridge-runner",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), "SessionBridgeMessaging", "SessionBridgeOAuth",
                "SessionBridgeScriptEngine",
                "SessionBridgeCookies", "SessionBridgeHeadless", "SessionBridge", "SessionBridgeTesting", "SessionBridgeWebKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: The WebKitGTK engine (real DOM pages; needs a display, started when none is set)
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]
        ),
        .target(name: "WebKitGTKShim", dependencies: ["CWebKitGTK"]),
        // Its header is among webkit2gtk-4.1's, its symbols in the same library.
        .target(name: "SessionBridgeWebProcessExtension", dependencies: ["CWebKitGTK"]),
        .target(
            name: "SessionBridgeWebKit",
            dependencies: [
                .product(name: "OrderedCollections", package: "swift-collections"),
                "CWebKitGTK", "WebKitGTKShim", "SessionBridgeScriptEngine", "SessionBridgeCookies", "SessionBridgeMessaging",
                "SessionBridgeHeadless",
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Fuzzing (built with -sanitize=fuzzer by Scripts/fuzz; a plain build replays inputs)
        .executableTarget(name: "fuzz-set-cookie", dependencies: ["SessionBridgeCookies"], path: "Fuzz/fuzz-set-cookie"),
        .executableTarget(
            name: "fuzz-script-value",
            dependencies: [
                .product(name: "OrderedCollections", package: "swift-collections"), "SessionBridgeScriptEngine", "SessionBridgeMessaging",
            ], path: "Fuzz/fuzz-script-value"),

        // MARK: Tests
        // What every test target shares: the trait that ends a run when a test hangs, a port
        // that refuses connections, temporary directories that later runs clean up.
        .target(name: "SessionBridgeTestSupport", path: "Tests/SessionBridgeTestSupport"),
        .testTarget(
            name: "SessionBridgeScriptEngineTests",
            dependencies: [
                "SessionBridgeTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"), "SessionBridgeScriptEngine", "SessionBridgeTesting",
            ],
            resources: [.copy("CompiledModule")]),
        .testTarget(
            name: "SessionBridgeCookiesTests",
            dependencies: [
                "SessionBridgeTestSupport",
                "SessionBridgeCookies", "SessionBridgeTesting",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ], resources: [.copy("Conformance")]),
        .testTarget(
            name: "SessionBridgeMessagingTests",
            dependencies: [
                "SessionBridgeTestSupport", "SessionBridgeMessaging", "SessionBridgeScriptEngine",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "SessionBridgeHeadlessTests",
            dependencies: [
                "SessionBridgeTestSupport",
                "SessionBridgeCookies", "SessionBridgeMessaging", "SessionBridgeScriptEngine", "SessionBridgeHeadless",
                "SessionBridgeTesting", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PropertyBased", package: "swift-property-based"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "SessionBridgeTests",
            dependencies: [
                "SessionBridgeTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), "SessionBridgeCookies", "SessionBridgeHeadless", "SessionBridgeMessaging",
                "SessionBridgeScriptEngine",
                "SessionBridgeOAuth",
                "SessionBridge", "SessionBridgeTesting", .product(name: "JWTKit", package: "jwt-kit"),
            ]),
        .testTarget(
            name: "SessionBridgeOAuthTests",
            dependencies: [
                "SessionBridgeTestSupport",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "SessionBridgeOAuth", "SessionBridgeTesting",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "SessionBridgeTestingTests",
            dependencies: [
                "SessionBridgeTestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), "SessionBridgeCookies", "SessionBridgeHeadless", "SessionBridgeMessaging",
                "SessionBridgeScriptEngine",
                "SessionBridgeTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]),
        .testTarget(
            name: "WebKitTests",
            dependencies: [
                "SessionBridgeTestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "SessionBridgeScriptEngine",
                "SessionBridgeWebKit", "SessionBridge", "SessionBridgeOAuth", "SessionBridgeTesting", "SessionBridgeHeadless",
                "SessionBridgeMessaging", "SessionBridgeCookies",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "BridgeRunnerTests",
            dependencies: [
                "SessionBridgeTestSupport",
                "bridge-runner", "SessionBridgeTesting", .product(name: "JWTKit", package: "jwt-kit"),
            ]),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "SessionBridgeTestSupport",
                "SessionBridgeScriptEngine",
                "SessionBridge", "SessionBridgeTesting", "SessionBridgeHeadless", "SessionBridgeMessaging", "SessionBridgeCookies",
                "fuzz-set-cookie", "fuzz-script-value",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Attacks")]
        ),
        // Against django-oauth-toolkit, a third-party server that Scripts/setup installs.
        .testTarget(
            name: "InteropTests",
            dependencies: [
                "SessionBridgeTestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "SessionBridge", "SessionBridgeOAuth", "SessionBridgeTesting", "bridge-runner", "SessionBridgeHeadless",
                "SessionBridgeMessaging",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ]
)

// Benchmarks (never tests: they print figures, nothing fails because a machine is slow). They link
// libsoup and raw C baselines that the libraries do not need, so they are part of the package only
// when asked for, as `Scripts/bench` does: SESSIONBRIDGE_BENCHMARKS=1 swift build -c release --product bridge-bench
if Context.environment["SESSIONBRIDGE_BENCHMARKS"] != nil {
    package.targets += [
        .target(
            name: "CBaselines",
            dependencies: ["CJavaScriptCore"],
            path: "Benchmarks/CBaselines",
            exclude: ["WebKit"],
            linkerSettings: [.linkedLibrary("soup-3.0"), .linkedLibrary("glib-2.0")]
        ),
        .target(name: "CWebKitBaselines", dependencies: ["CWebKitGTK"], path: "Benchmarks/CBaselines/WebKit"),
        .executableTarget(
            name: "bridge-bench",
            dependencies: [
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "CBaselines", "CWebKitBaselines", "SessionBridgeScriptEngine", "SessionBridgeMessaging", "SessionBridgeCookies",
                "SessionBridgeHeadless", "SessionBridge", "SessionBridgeTesting", "SessionBridgeWebKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/bridge-bench"
        ),
    ]
}

// The stricter language settings, for every Swift target: imports are internal unless marked
// `public`, existential types are spelled `any`, a member is visible only where its module is
// imported, and unsafe code is marked `unsafe`.
for target in package.targets where [.regular, .executable, .test].contains(target.type) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
            .strictMemorySafety(),
        ]
}
