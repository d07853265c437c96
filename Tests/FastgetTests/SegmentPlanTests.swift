@testable import Fastget
import Testing

/// A small deterministic generator so the property checks are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct SegmentPlanTests {
    @Test func tilesTheFileExactlyForRandomLengthsAndCounts() {
        var random = SplitMix64(state: 42)
        for _ in 0..<5000 {
            let length = Int64.random(in: 0...(Int64(1) << Int64.random(in: 0...44, using: &random)), using: &random)
            let segments = Int.random(in: 1...64, using: &random)
            let minimum = Int64.random(in: 1...(4 << 20), using: &random)
            let plan = SegmentPlan.tiles(length: length, segments: segments, minimumSize: minimum)
            if length == 0 {
                #expect(plan.isEmpty)
                continue
            }
            #expect(plan.first?.start == 0)
            #expect(plan.last?.end == length)
            #expect(plan.count >= 1 && plan.count <= segments)
            for (previous, next) in zip(plan, plan.dropFirst()) {
                #expect(previous.end == next.start, "gap or overlap in \(plan)")
            }
            #expect(plan.allSatisfy { $0.count > 0 })
            if plan.count > 1 {
                #expect(plan.allSatisfy { $0.count >= minimum }, "segment under the minimum: \(plan)")
                let sizes = plan.map(\.count)
                #expect(sizes.max()! - sizes.min()! <= 1)
            }
        }
    }

    @Test func smallFilesUseFewerSegments() {
        #expect(SegmentPlan.tiles(length: 1, segments: 16, minimumSize: 1 << 20) == [ByteRange(start: 0, end: 1)])
        #expect(SegmentPlan.tiles(length: 3 << 20, segments: 16, minimumSize: 1 << 20).count == 3)
        #expect(SegmentPlan.tiles(length: (32 << 20) + 7, segments: 16, minimumSize: 1 << 20).count == 16)
    }

    @Test func rangeHeaderIsInclusive() {
        #expect(ByteRange(start: 0, end: 1_048_576).headerValue == "bytes=0-1048575")
        #expect(ByteRange(start: 5, end: 6).headerValue == "bytes=5-5")
    }

    @Test func aResumeIsResplitToTheCountAskedForNow() {
        let mib: Int64 = 1 << 20
        // Begun with two segments, a third of each written.
        let records = [SegmentRecord(start: 0, end: 12 * mib, written: 4 * mib), SegmentRecord(start: 12 * mib, end: 24 * mib, written: 16 * mib)]
        let split = SegmentPlan.resplit(records, segments: 8, minimumSize: mib)
        #expect(split.filter { $0.written < $0.end }.count == 8)
        #expect(split.first?.start == 0 && split.last?.end == 24 * mib)
        #expect(zip(split, split.dropFirst()).allSatisfy { $0.end == $1.start }, "still a tiling")
        #expect(split.allSatisfy { $0.start <= $0.written && $0.written <= $0.end })
        #expect(split.reduce(0) { $0 + $1.written - $1.start } == 8 * mib, "the same bytes claimed")
        // Never halves below the minimum; never fewer segments than asked before.
        #expect(SegmentPlan.resplit(records, segments: 64, minimumSize: 3 * mib).count == 4)
        #expect(SegmentPlan.resplit(records, segments: 1, minimumSize: mib) == records)
        // A one-byte rest and no minimum: no empty segments without end.
        let almost = [SegmentRecord(start: 0, end: 10, written: 9)]
        #expect(SegmentPlan.resplit(almost, segments: 8, minimumSize: 0) == almost)
    }
}
