import Testing

@testable import SessionBridgeHeadless

/// The language of a locale's name, as WebKit reads the process's locale.
@Suite(.timeLimit(.minutes(1))) struct PreferredLanguageTests {
    @Test func aLocaleGivesItsLanguageAndTerritory() {
        let installed: (String) -> Bool = { _ in true }
        #expect(PreferredLanguage.language(ofLocale: "de_DE.UTF-8", isInstalled: installed) == "de-DE")
        #expect(PreferredLanguage.language(ofLocale: "sr_RS@latin", isInstalled: installed) == "sr-RS")
        #expect(PreferredLanguage.language(ofLocale: "fr", isInstalled: installed) == "fr")
        #expect(PreferredLanguage.language(ofLocale: "es_419.UTF-8", isInstalled: installed) == "es-419")
    }

    @Test func theCLocaleNoLocaleAndNamesThatAreNoLanguageGiveEnUS() {
        let installed: (String) -> Bool = { _ in true }
        for name in [nil, "", "C", "C.UTF-8", "C.utf8", "POSIX", "../../etc/passwd", "de_DE_x", "1a_DE", "english"] as [String?] {
            #expect(PreferredLanguage.language(ofLocale: name, isInstalled: installed) == "en-US", "\(name ?? "nil")")
        }
        #expect(PreferredLanguage.language(ofLocale: "de_DE.UTF-8", isInstalled: { _ in false }) == "en-US")
    }
}
