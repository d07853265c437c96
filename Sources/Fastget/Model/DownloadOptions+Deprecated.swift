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
}
