// libFuzzer driver for the parsers (see run.sh). Built with `swiftc -sanitize=fuzzer,address`
// together with the library's sources as one module, because SwiftPM cannot link a fuzzer.
// FASTGET_FUZZ_TARGET names the target (FuzzTarget's raw values: head, chunked, cookie-file, set-cookie, authenticate, …).
internal import Glibc

private let target: FuzzTarget = {
    guard let name = getenv("FASTGET_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        fatalError("set FASTGET_FUZZ_TARGET to one of: \(names)")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if let problem = target.run(UnsafeRawBufferPointer(start: data, count: size)) {
        fatalError("\(target.rawValue): \(problem)")
    }
    return 0
}
