import FastgetTestSupport
import Foundation
import Glibc

/// The many scenarios' files: `count` files of `size` bytes, each with its own deterministic
/// bytes (seeded by its index, so a file saved under the wrong name is caught), on disk in
/// `directory`, with their SHA-256 digests.
final class ManyFiles {
    /// The URL path they are served under.
    static let folder = "/many/"
    let directory: String
    let names: [String]
    let size: Int
    let digests: [String]

    init(count: Int, size: Int, in parent: TemporaryDirectory) throws {
        directory = parent.file("many")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.size = size
        names = (0..<count).map { String(format: "f-%05d.bin", $0) }
        var digests: [String] = []
        for (index, name) in names.enumerated() {
            let bytes = testBytes(count: size, seed: (UInt64(index) + 1) &* 0x9E37_79B9_7F4A_7C15)
            try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
            chmod("\(directory)/\(name)", 0o644)
            digests.append(SHA256.hex(bytes))
        }
        self.digests = digests
    }

    /// The index in a name `f-INDEX.bin`.
    static func index(of name: Substring) -> Int? {
        guard name.hasPrefix("f-"), name.hasSuffix(".bin") else { return nil }
        return Int(name.dropFirst(2).dropLast(4))
    }

    /// Copies every file into `folder` (made world-readable, for nginx's worker).
    func copy(into folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        for name in names {
            try FileManager.default.copyItem(atPath: "\(directory)/\(name)", toPath: "\(folder)/\(name)")
            chmod("\(folder)/\(name)", 0o644)
        }
    }

    /// The first file in `folder` that is missing, of the wrong size or with other bytes; nil
    /// when every one is right.
    func firstProblem(in folder: String) -> String? {
        for (name, digest) in zip(names, digests) {
            let path = "\(folder)/\(name)"
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return "\(name) missing" }
            let length = (attributes[.size] as? NSNumber)?.intValue ?? -1
            guard length == size else { return "\(name): \(length) of \(size) bytes" }
            guard SHA256.hex(ofFile: path) == digest else { return "\(name): other bytes (sha-256 differs)" }
        }
        return nil
    }
}

/// Runs every tool on the whole list `repetitions` times, `parallel` downloads at once, each
/// tool in turn within a repetition, into a fresh directory each time; a run counts only when
/// the tool exits 0 and every file is right. Durable: the wall time plus a `syncfs` of the
/// output timed right after the tool exited (after a `sync` before the run, so that it flushes
/// only what this run left dirty).
func measureManyCells(
    _ tools: [Tool], _ kind: ScenarioKind, files: ManyFiles, urls: [String], parallel: Int, repetitions: Int, peer: Peer,
    output: TemporaryDirectory
) throws -> [Cell] {
    let list = output.file("many.list")
    try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
    defer { unlink(list) }
    let bytes = Int64(files.size) * Int64(files.names.count)
    var samples = [Samples](repeating: Samples(), count: tools.count)
    for _ in 0..<repetitions {
        for (index, tool) in tools.enumerated() {
            guard let arguments = tool.listArguments else { throw HarnessFailure("\(tool.name) has no list mode") }
            let directory = output.file("many-\(tool.name)")
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            sync()
            peer.beginRun(kind)
            let result = try measure(tool.path, arguments(list, urls, directory, parallel, kind.usesTLS ? peer.caFile : nil))
            let flush = syncFileSystemSeconds(directory)
            let stats = peer.endRun(kind)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            guard result.status == 0 else {
                samples[index].fail(result, "")
                continue
            }
            if let problem = files.firstProblem(in: directory) {
                samples[index].fail(result, problem)
                continue
            }
            samples[index].add(
                result, bytes: bytes, stats: RunStats(tail: nil, ideal: nil, connections: stats.connections), syncSeconds: flush)
        }
    }
    return zip(tools, samples).map { tool, samples in
        samples.cell(kind, peer: peer, tool: tool, segments: parallel, bytes: bytes, runs: repetitions, files: files.names.count)
    }
}

/// Seconds a `syncfs` of the file system holding `directory` takes: what stands between a
/// tool's exit and every file it wrote being durable.
func syncFileSystemSeconds(_ directory: String) -> Double? {
    let fd = open(directory, O_RDONLY | O_DIRECTORY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard let syncfs = syncFileSystem else { return nil }
    let start = monotonicNow()
    guard syncfs(fd) == 0 else { return nil }
    return monotonicNow() - start
}

/// glibc's `syncfs`, which Swift's Glibc module does not declare (it is a GNU extension).
private let syncFileSystem: (@convention(c) (Int32) -> Int32)? = {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "syncfs") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
}()
