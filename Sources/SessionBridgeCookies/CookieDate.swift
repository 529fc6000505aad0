public import Foundation

/// The cookie-date parsing algorithm of RFC 6265bis ("Dates"), over UTF-8 bytes.
///
/// Accepts every form the algorithm's grammar accepts (RFC 1123, RFC 850, asctime, and the many
/// loose variants found in the wild), builds the date from its fields with plain arithmetic, and
/// never allocates.
public enum CookieDate {
    /// Parses a cookie-date; `nil` when the algorithm says to fail.
    public static func parse(_ string: String) -> Date? {
        var string = string
        return string.withUTF8 { unsafe parse(bytes: $0) }
    }

    /// Parses a cookie-date from UTF-8 bytes; `nil` when the algorithm says to fail.
    package static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let seconds = unsafe parseSeconds(bytes: bytes, from: 0, to: bytes.count) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Seconds since 1970 for a cookie-date in `bytes[start..<end]`.
    static func parseSeconds(bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int64? {
        var hour = -1, minute = -1, second = -1, day = -1, month = -1, year = -1
        var i = start
        while i < end {
            while i < end, unsafe isDelimiter(bytes[i]) { i += 1 }
            let tokenStart = i
            while i < end, unsafe !isDelimiter(bytes[i]) { i += 1 }
            let tokenEnd = i
            if tokenStart == tokenEnd { continue }
            if hour < 0, let (h, m, s) = unsafe matchTime(bytes, tokenStart, tokenEnd) {
                hour = h; minute = m; second = s
            } else if day < 0, let d = unsafe matchDigits(bytes, tokenStart, tokenEnd, min: 1, max: 2) {
                day = d
            } else if month < 0, let m = unsafe matchMonth(bytes, tokenStart, tokenEnd) {
                month = m
            } else if year < 0, let y = unsafe matchDigits(bytes, tokenStart, tokenEnd, min: 2, max: 4) {
                year = y
            }
        }
        guard hour >= 0, day >= 0, month >= 0, year >= 0 else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard day >= 1, day <= 31, year >= 1601, hour <= 23, minute <= 59, second <= 59 else { return nil }
        guard day <= daysInMonth(month, year: year) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    @inline(__always)
    static func isDelimiter(_ c: UInt8) -> Bool {
        c == 0x09 || (0x20...0x2F).contains(c) || (0x3B...0x40).contains(c)
            || (0x5B...0x60).contains(c) || (0x7B...0x7E).contains(c)
    }

    @inline(__always)
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// `1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT [ non-digit *OCTET ]`
    static func matchTime(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int, Int)? {
        var i = start
        var fields = (0, 0, 0)
        for index in 0..<3 {
            var value = 0, count = 0
            while i < end, unsafe isDigit(b[i]), count < 2 { value = unsafe value * 10 + Int(b[i] - 0x30); i += 1; count += 1 }
            if count == 0 { return nil }
            switch index {
            case 0: fields.0 = value
            case 1: fields.1 = value
            default: fields.2 = value
            }
            if index < 2 {
                guard i < end, unsafe b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
            }
        }
        if i < end, unsafe isDigit(b[i]) { return nil }
        return fields
    }

    /// `min*maxDIGIT [ non-digit *OCTET ]`
    static func matchDigits(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, min: Int, max: Int) -> Int? {
        var i = start, value = 0
        while i < end, unsafe isDigit(b[i]), i - start < max { value = unsafe value * 10 + Int(b[i] - 0x30); i += 1 }
        let count = i - start
        if count < min { return nil }
        if i < end, unsafe isDigit(b[i]) { return nil }
        return value
    }

    /// `( "jan" / "feb" / ... / "dec" ) *OCTET`, case-insensitively; returns 1...12.
    static func matchMonth(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        guard end - start >= 3 else { return nil }
        let c0 = unsafe b[start] | 0x20, c1 = unsafe b[start + 1] | 0x20, c2 = unsafe b[start + 2] | 0x20
        let key = UInt32(c0) << 16 | UInt32(c1) << 8 | UInt32(c2)
        switch key {
        case 0x6A616E: return 1  // jan
        case 0x666562: return 2  // feb
        case 0x6D6172: return 3  // mar
        case 0x617072: return 4  // apr
        case 0x6D6179: return 5  // may
        case 0x6A756E: return 6  // jun
        case 0x6A756C: return 7  // jul
        case 0x617567: return 8  // aug
        case 0x736570: return 9  // sep
        case 0x6F6374: return 10  // oct
        case 0x6E6F76: return 11  // nov
        case 0x646563: return 12  // dec
        default: return nil
        }
    }
}
