/// What `Download.onEvent` and `DownloadQueue.onEvent` return: give it to `removeHandler` to
/// stop the handler's calls and release what it captured (a handler that captures its
/// download otherwise keeps it alive as long as the download lives).
public struct EventHandlerToken: Hashable, Sendable {
    /// Unique in the process: a token never matches another object's handler.
    let value: Int

    init(_ value: Int) { self.value = value }
}
