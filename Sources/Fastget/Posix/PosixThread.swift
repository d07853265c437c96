internal import Glibc

/// A joinable POSIX thread running a Swift closure.
///
/// The closure travels to the new thread in a retained box through a `@convention(c)` trampoline;
/// handing a capturing closure to `pthread_create` directly crashes the Swift 6 compiler.
package final class PosixThread: @unchecked Sendable {
    private var handle: pthread_t
    private var joined = false

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread with `stackSize` bytes of stack.
    /// The corresponding C function is `pthread_create`.
    package init(stackSize: Int = 512 * 1024, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { argument in
                let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        if result != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            throw SystemError("pthread_create", errno: result)
        }
        handle = thread
    }

    /// Waits for the thread to finish. The corresponding C function is `pthread_join`.
    package func join() {
        guard !joined else { return }
        joined = true
        pthread_join(handle, nil)
    }

    deinit {
        if !joined { pthread_detach(handle) }
    }
}
