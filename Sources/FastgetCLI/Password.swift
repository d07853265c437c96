import Fastget
import Glibc

/// `-u USER` without a password: asked for on the terminal, without echo, as curl does; never
/// an empty password sent silently.
enum Password {
    /// Fills in `invocation`'s missing password from the terminal; a usage error when there is
    /// no terminal to ask on. Returns false when the user cancelled (Ctrl-C or Ctrl-D): the
    /// signals are blocked in every thread and taken by a watcher that starts only with the
    /// download, so the prompt reads the keys itself (no echo, no line editing but backspace).
    static func ask(_ invocation: inout Invocation) throws(UsageError) -> Bool {
        guard let user = invocation.options.user, invocation.options.password == nil else { return true }
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0, isatty(0) == 1 else {
            if terminal >= 0 { close(terminal) }
            throw UsageError(message: "-u \(user) has no password: give -u \(user):PASSWORD, or run on a terminal to be asked")
        }
        defer { close(terminal) }
        var saved = termios()
        let hidden = tcgetattr(terminal, &saved) == 0
        if hidden {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
            (quiet.c_cc.6, quiet.c_cc.5) = (1, 0) // VMIN 1, VTIME 0: a key at a time
            tcsetattr(terminal, TCSANOW, &quiet)
        }
        defer { if hidden { tcsetattr(terminal, TCSANOW, &saved) } }
        Console.write("Enter password for \(user): ", to: terminal)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        reading: while true {
            // The signals are blocked: a SIGTERM or SIGHUP (kill, a closed terminal) waits
            // pending, and is looked for between keys.
            var ready = pollfd(fd: terminal, events: Int16(POLLIN), revents: 0)
            guard !signalPending() else { return false }
            guard poll(&ready, 1, 200) != 0 else { continue }
            let count = read(terminal, &byte, 1)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count == 1 else { return false } // the terminal is gone: nothing is sent
            switch byte {
            case 0x0A, 0x0D: break reading
            case 0x03,
                0x04 where line.isEmpty: // Ctrl-C, or Ctrl-D on nothing typed
                Console.write("\n", to: terminal)
                return false
            case 0x04: continue
            case 0x7F, 0x08: _ = line.popLast()
            default: line.append(byte)
            }
        }
        Console.write("\n", to: terminal)
        invocation.options.password = String(decoding: line, as: UTF8.self)
        return true
    }

    /// Whether a signal that ends the program waits, blocked.
    private static func signalPending() -> Bool {
        var pending = sigset_t()
        guard sigpending(&pending) == 0 else { return false }
        return [SIGTERM, SIGHUP, SIGINT, SIGQUIT].contains { sigismember(&pending, $0) == 1 }
    }
}
