extension Int {
    /// A JavaScript number as an integer (truncated toward zero), or `nil` when it is not
    /// finite or lies outside `Int`'s range.
    ///
    /// `Int(_:)` stops the process for such a value, and a page can pass one anywhere it passes
    /// a number (`clearTimeout(NaN)`, an error whose `line` is `1e300`): every number read from
    /// JavaScript becomes an integer through this.
    package init?(javaScriptNumber number: Double) {
        guard number.isFinite, number > -0x1p63, number < 0x1p63 else { return nil }
        self.init(number)
    }
}
