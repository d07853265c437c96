extension Download {
    /// A download of a URL already parsed (its user name and password, when it has them, are
    /// used as a string URL's are). From Foundation's `URL`, pass its `absoluteString` to
    /// `init(url:destination:options:session:)` with a `String` instead: the library does not
    /// link Foundation.
    ///
    /// - Parameters:
    ///   - url: the file's `http` or `https` URL.
    ///   - destination: the output path; nil means `options.output`, else the URL's file name
    ///     in `options.directory`.
    ///   - options: connections, output, checks, credentials and limits for this download.
    ///   - session: connections, TLS sessions and the per-host cap shared with other downloads;
    ///     nil: its own.
    /// - Throws: `FastgetError` with code `.usage` for invalid options.
    public convenience init(
        url: HTTPURL, destination: String? = nil, options: DownloadOptions = DownloadOptions(), session: Session? = nil
    ) throws(FastgetError) {
        try self.init(parsed: url, destination: destination, options: options, session: session, state: .queued)
    }
}
