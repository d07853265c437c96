/// The options' earlier names, kept for a release so that embedders' code still compiles.
extension DownloadOptions {
    /// The earlier name of `replacesExistingFile`.
    @available(*, deprecated, renamed: "replacesExistingFile")
    public var overwrite: Bool {
        get { replacesExistingFile }
        set { replacesExistingFile = newValue }
    }

    /// The earlier name of `keepsExistingFile`.
    @available(*, deprecated, renamed: "keepsExistingFile")
    public var noClobber: Bool {
        get { keepsExistingFile }
        set { keepsExistingFile = newValue }
    }

    /// The earlier name of `stealsWork`.
    @available(*, deprecated, renamed: "stealsWork")
    public var stealing: Bool {
        get { stealsWork }
        set { stealsWork = newValue }
    }

    /// The earlier name of `hedgesTails`.
    @available(*, deprecated, renamed: "hedgesTails")
    public var hedging: Bool {
        get { hedgesTails }
        set { hedgesTails = newValue }
    }

    /// The opposite of `verifiesCertificates`, its earlier form.
    @available(*, deprecated, message: "use verifiesCertificates, its opposite")
    public var insecure: Bool {
        get { !verifiesCertificates }
        set { verifiesCertificates = !newValue }
    }

    /// The extra fields as pairs, their earlier form: a pair is checked when the download
    /// starts (`.usage`), a `HeaderField` when it is made.
    @available(*, deprecated, message: "use headerFields: a HeaderField cannot hold a line break")
    public var headers: [(name: String, value: String)] {
        get { headerFields.map(\.pair) }
        set { headerFields = newValue.map { HeaderField(unchecked: $0.name, $0.value) } }
    }

    /// `connectionTimeout` in seconds, its earlier form (`.infinity`: no limit).
    @available(*, deprecated, message: "use connectionTimeout, a Duration (nil: no limit)")
    public var connectTimeout: Double {
        get { connectSeconds }
        set { connectionTimeout = Duration(limit: newValue) }
    }

    /// `ioTimeout` in seconds, its earlier form (`.infinity`: no limit).
    @available(*, deprecated, message: "use ioTimeout, a Duration (nil: no limit)")
    public var timeout: Double {
        get { ioSeconds }
        set { ioTimeout = Duration(limit: newValue) }
    }

    /// `speedWindow` in seconds, its earlier form.
    @available(*, deprecated, message: "use speedWindow, a Duration")
    public var speedTime: Double {
        get { speedSeconds }
        set { speedWindow = Duration(limit: newValue) ?? .seconds(1e15) } // out of range: refused
    }

    /// `speedWindowRange` in seconds, its earlier form.
    @available(*, deprecated, message: "use speedWindowRange, in Durations")
    public static var speedTimeRange: ClosedRange<Double> { speedWindowRange.lowerBound.seconds...speedWindowRange.upperBound.seconds }

    /// `checkpointPeriod` in seconds, its earlier form (`.infinity`: only when the transfer stops).
    @available(*, deprecated, message: "use checkpointPeriod, a Duration (nil: only when the transfer stops)")
    public var checkpointInterval: Double {
        get { checkpointSeconds }
        set { checkpointPeriod = Duration(limit: newValue) }
    }

    /// `progressPeriod` in seconds, its earlier form.
    @available(*, deprecated, message: "use progressPeriod, a Duration")
    public var progressInterval: Double {
        get { progressSeconds }
        set { progressPeriod = Duration(limit: newValue) ?? .seconds(1e15) }
    }
}
