import Foundation
import Glibc

/// The language a page is told the user reads (`navigator.language`, `navigator.languages`,
/// `Accept-Language`), on both engines: the process's locale for character types, as WebKit
/// reads it, `de_DE.UTF-8` giving `de-DE`.
///
/// The C and POSIX locales, with or without a codeset, give `en-US`, as does a locale the
/// system does not have (WebKit then runs in the C locale). WebKitGTK 2.50 itself gives `C`
/// for `C.UTF-8`, Debian's default, a tag `Intl` refuses (`new Intl.NumberFormat(navigator.language)`
/// throws a `RangeError`): the WebKit engine is given this language instead.
package enum PreferredLanguage {
    /// The process's language, read once.
    package static let current = language(ofLocale: environmentLocale(), isInstalled: isInstalled)

    /// The language of the locale `name` (`language_TERRITORY.codeset@modifier`), `en-US` for
    /// none, C, POSIX, one `isInstalled` says the system does not have, or one that does not
    /// make a language tag.
    static func language(ofLocale name: String?, isInstalled: (String) -> Bool) -> String {
        guard let name, !name.isEmpty, isInstalled(name) else { return "en-US" }
        let base = name.prefix { $0 != "." && $0 != "@" }
        guard base != "C", base != "POSIX" else { return "en-US" }
        let parts = base.split(separator: "_", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter }),
            parts.dropFirst().allSatisfy({ (2...3).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else { return "en-US" }
        return parts.joined(separator: "-")
    }

    /// The locale for character types the environment names, as `setlocale` reads it: `LC_ALL`,
    /// then `LC_CTYPE`, then `LANG` (the first set and not empty).
    static func environmentLocale() -> String? {
        let environment = ProcessInfo.processInfo.environment
        return ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }

    /// Whether the system has the locale `name`.
    static func isInstalled(_ name: String) -> Bool {
        guard let locale = unsafe newlocale(LC_CTYPE_MASK, name, nil) else { return false }
        unsafe freelocale(locale)
        return true
    }
}
