@testable import Fastget
import Glibc
import Testing

/// The small Posix APIs through which the layers above reach the C library.
@Suite struct PosixTests {
    @Test func errnoNamesAreTheCValues() {
        let pairs: [(Int32, Int32)] = [
            (Errno.ioError, EIO), (Errno.noSpace, ENOSPC), (Errno.diskQuotaExceeded, EDQUOT),
            (Errno.permissionDenied, EACCES), (Errno.notPermitted, EPERM), (Errno.readOnlyFileSystem, EROFS),
            (Errno.noSuchFileOrDirectory, ENOENT), (Errno.notDirectory, ENOTDIR), (Errno.isDirectory, EISDIR),
            (Errno.fileNameTooLong, ENAMETOOLONG), (Errno.fileExists, EEXIST), (Errno.tooManySymbolicLinkLevels, ELOOP),
            (Errno.invalidArgument, EINVAL), (Errno.noFunction, ENOSYS), (Errno.resourceTemporarilyUnavailable, EAGAIN),
            (Errno.timedOut, ETIMEDOUT), (Errno.brokenPipe, EPIPE), (Errno.connectionRefused, ECONNREFUSED),
            (Errno.networkUnreachable, ENETUNREACH), (Errno.noRouteToHost, EHOSTUNREACH),
            (Errno.addressNotAvailable, EADDRNOTAVAIL), (Errno.addressFamilyNotSupported, EAFNOSUPPORT),
        ]
        for (name, value) in pairs { #expect(name == value) }
        let result = close(-1)
        let code = Errno.current
        #expect(result == -1 && code == EBADF)
    }

    @Test func writeAllContinuesAfterShortWrites() {
        let bytes = Array(0..<10 as Range<UInt8>)
        var received: [UInt8] = []
        var offsets: [Int] = []
        bytes.withUnsafeBytes { raw in
            writeAll(raw) { (remaining, written) -> Int in
                offsets.append(written)
                received += remaining.prefix(3)
                return min(3, remaining.count)
            }
        }
        #expect(received == bytes)
        #expect(offsets == [0, 3, 6, 9])
    }

    @Test func aWriteStepThatWritesNothingFailsWithEIO() {
        let bytes: [UInt8] = [1, 2, 3]
        #expect(throws: SystemError.self) {
            try bytes.withUnsafeBytes { raw in
                try writeAll(raw) { (remaining, _) throws(SystemError) in try writeStep("write", remaining) { _, _ in 0 } }
            }
        }
        let failure = bytes.withUnsafeBytes { raw -> SystemError? in
            do throws(SystemError) {
                _ = try writeStep("write", raw) { _, _ in 0 }
                return nil
            } catch {
                return error
            }
        }
        #expect(failure?.errno == EIO && failure?.operation == "write")
    }

    @Test func writesAllBytesToADescriptor() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let bytes = Array("a stream's bytes".utf8)
        try bytes.withUnsafeBytes { raw in try FileDescriptor.write(raw, to: ends[1]) }
        var back = [UInt8](repeating: 0, count: bytes.count)
        #expect(read(ends[0], &back, back.count) == bytes.count)
        #expect(back == bytes)
        #expect(throws: SystemError.self) {
            try bytes.withUnsafeBytes { raw in try FileDescriptor.write(raw, to: -1) }
        }
    }

    @Test func tellsIPLiteralsFromNames() {
        #expect(SocketAddress.isIPv4Literal("192.0.2.1"))
        #expect(!SocketAddress.isIPv4Literal("example.com"))
        #expect(!SocketAddress.isIPv4Literal("::1"))
        #expect(SocketAddress.isIPv6Literal("::1"))
        #expect(SocketAddress.isIPv6Literal("2001:db8::1"))
        #expect(!SocketAddress.isIPv6Literal("192.0.2.1"))
        #expect(!SocketAddress.isIPv6Literal("[::1]"))
    }

    @Test func readsTheEnvironment() {
        #expect(Environment.value("PATH") == getenv("PATH").map { String(cString: $0) })
        #expect(Environment.value("FASTGET_TEST_SURELY_UNSET_VARIABLE") == nil)
    }

    @Test func sleepsAboutAsLongAsAsked() {
        let start = MonotonicClock.seconds()
        MonotonicClock.sleep(seconds: 0.02)
        #expect(MonotonicClock.seconds() - start >= 0.019)
        let again = MonotonicClock.seconds()
        MonotonicClock.sleep(seconds: 0)
        MonotonicClock.sleep(seconds: -1)
        MonotonicClock.sleep(seconds: .nan)
        #expect(MonotonicClock.seconds() - again < 0.5)
    }
}
