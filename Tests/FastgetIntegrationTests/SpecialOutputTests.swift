import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// Outputs that are not regular files are written as streams and never replaced, renamed or
/// truncated: a copy of the null device made with `mknod` and a FIFO in a temporary directory
/// (never the real `/dev/null`).
@Suite struct SpecialOutputTests {
    let data = testBytes(count: 6 << 20, seed: 81)

    /// What is at `path`: the `S_IFMT` bits, or nil.
    func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// A device number (glibc's `makedev`, a macro Swift does not import), for small numbers.
    func deviceNumber(_ major: UInt64, _ minor: UInt64) -> dev_t { dev_t(major << 8 | minor) }

    func rangeRequests(_ server: TestServer) -> [RecordedRequest] {
        server.requests.filter { $0.method == "GET" && $0.header("Range") != nil }
    }

    @Test(.enabled(if: getuid() == 0, "mknod needs root"), arguments: [[], ["--overwrite"], ["-c"]])
    func aNullDeviceIsWrittenToAtSegmentedSpeedAndStaysADevice(flags: [String]) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let device = directory.file("null")
        #expect(mknod(device, S_IFCHR | 0o666, deviceNumber(1, 3)) == 0)
        let result = try runProcess(try fastgetExecutable(), flags + ["-n", "4", "-o", device, server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(kind(device) == S_IFCHR, "still the device")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["null"], "no .part, journal or lock beside it")
        #expect(rangeRequests(server).count >= 4, "segmented")
        #expect(result.stderr.contains("wrote \(device) ("), "\(result.stderr)")
    }

    @Test func aFIFOGetsTheBytesInOrderAndStaysAFIFO() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let received = Locked<[UInt8]>([])
        let read = DispatchSemaphore(value: 0)
        Thread {
            if let handle = FileHandle(forReadingAtPath: fifo) { received.withLock { $0 = [UInt8](handle.readDataToEndOfFile()) } }
            read.signal()
        }.start()
        let result = try runProcess(
            try fastgetExecutable(), ["-n", "4", "--overwrite", "-o", fifo, server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        // The writer closed it, so the reader sees the end.
        #expect(read.wait(timeout: .now() + 10) == .success)
        #expect(SHA256.hex(received.withLock { $0 }) == SHA256.hex(data))
        #expect(kind(fifo) == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["fifo"])
    }

    /// Makes a FIFO in `directory`, starts `fastget -o FIFO` and waits (bounded) until it says
    /// it waits for a reader.
    func startWaiting(in directory: TemporaryDirectory, _ server: TestServer) throws -> (fifo: String, Process, DispatchSemaphore) {
        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try fastgetExecutable())
        process.arguments = ["-o", fifo, server.url()]
        let errors = Pipe()
        process.standardError = errors
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        var waiting = false
        var said = Data()
        while !waiting, exited.wait(timeout: .now() + 0.05) == .timedOut, said.count < 4096 {
            said += errors.fileHandleForReading.availableData
            waiting = String(decoding: said, as: UTF8.self).contains("waiting for a reader of \(fifo)")
        }
        #expect(waiting)
        return (fifo, process, exited)
    }

    @Test func aFIFOWithoutAReaderIsWaitedForUntilInterrupted() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // It waits for a reader (and says so) instead of failing or blocking where Ctrl-C
        // cannot reach.
        let (fifo, process, exited) = try startWaiting(in: directory, server)
        kill(process.processIdentifier, SIGINT)
        #expect(exited.wait(timeout: .now() + 10) == .success)
        #expect(process.terminationStatus == 130)
        #expect(kind(fifo) == S_IFIFO)
    }

    @Test func aRegularFilePutInTheFIFOsPlaceIsNotWrittenOver() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (fifo, process, exited) = try startWaiting(in: directory, server)
        let mine = Data("the user's own file\n".utf8)
        try mine.write(to: URL(fileURLWithPath: directory.file("mine")))
        #expect(rename(directory.file("mine"), fifo) == 0)
        #expect(exited.wait(timeout: .now() + 10) == .success)
        #expect(process.terminationStatus == 73)
        #expect(FileManager.default.contents(atPath: fifo) == mine, "not a byte written over it")
    }

    @Test func aSocketIsRefusedAtOnce() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socketPath = directory.file("s.sock")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        let result = try runProcess(try fastgetExecutable(), ["-o", socketPath, server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("is neither a file, a device nor a FIFO"), "\(result.stderr)")
        #expect(server.requests.isEmpty, "nothing fetched")
    }

    @Test func devStdoutIsTheProcesssOwnStandardOutput() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shell = try #require(findExecutable("sh"))
        let result = try runProcess(
            shell, ["-c", "\"$0\" -q -n 4 -o /dev/stdout \"$1\" > out.bin", try fastgetExecutable(), server.url()], in: directory.path,
            timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.bin"])
    }

    @Test(.enabled(if: getuid() == 0, "mknod needs root"))
    func aBlockDeviceIsRefusedUntouched() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let device = directory.file("disk")
        // A loop device number nothing uses: the node is never opened.
        #expect(mknod(device, S_IFBLK | 0o600, deviceNumber(7, 250)) == 0)
        let result = try runProcess(try fastgetExecutable(), ["--overwrite", "-o", device, server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("\(device) is a block device"), "\(result.stderr)")
        #expect(kind(device) == S_IFBLK)
        #expect(rangeRequests(server).isEmpty && server.requests.isEmpty, "nothing fetched")
    }
}
