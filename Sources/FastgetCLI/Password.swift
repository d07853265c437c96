import Fastget
import Glibc

/// `-u USER` without a password: asked for on the terminal, without echo, as curl does; never
/// an empty password sent silently.
enum Password {
    /// Fills in `invocation`'s missing password from the terminal; a usage error when there is
    /// no terminal to ask on.
    static func ask(_ invocation: inout Invocation) throws(UsageError) {
        guard let user = invocation.options.user, invocation.options.password == nil else { return }
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
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(terminal, TCSANOW, &quiet)
        }
        defer { if hidden { tcsetattr(terminal, TCSANOW, &saved) } }
        Console.write("Enter password for \(user): ", to: terminal)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(terminal, &byte, 1) == 1, byte != 0x0A { if byte != 0x0D { line.append(byte) } }
        Console.write("\n", to: terminal)
        invocation.options.password = String(decoding: line, as: UTF8.self)
    }
}
