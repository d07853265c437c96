import Glibc

/// The process's table of file descriptors, grown at start-up. Each connection of a download
/// takes a socket and a splice pipe (three descriptors), and the kernel grows the table as
/// descriptors are opened: 64 slots, then 128, 256… A process with more than one thread pays
/// for each growth with an RCU grace period, during which every thread opening a descriptor
/// waits (`expand_fdtable`): at `-n 32` the connections past the twentieth started 15 ms late.
/// Grown while `main` is the only thread, the table needs no grace period and never grows again
/// for a thousand descriptors. The table is kernel memory, 8 KiB at 1,024 slots.
enum DescriptorTable {
    /// Slots the table is grown to, at most the soft limit on open files.
    static let slots = 1024

    /// The slots the table is grown to: `slots`, or the soft limit on open files when lower;
    /// nil when the limit cannot be read.
    static var wanted: Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return Int(min(UInt64(slots), UInt64(limit.rlim_cur)))
    }

    /// Grows the table by duplicating a socket of its own to the highest slot wanted (the lowest
    /// free one from there: nothing open is replaced) and closing both. Never a descriptor it
    /// was given: closing any descriptor of a file drops every POSIX lock the process holds on
    /// that file, and a program may exec fastget holding one on its standard input. Call it
    /// before any thread starts.
    static func reserve() {
        guard let wanted, wanted > 64 else { return }
        let highest = Int32(wanted) - 1
        let own = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard own >= 0 else { return }
        let copy = fcntl(own, F_DUPFD_CLOEXEC, highest)
        if copy >= 0 { close(copy) }
        close(own)
    }
}
