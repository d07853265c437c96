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
}
