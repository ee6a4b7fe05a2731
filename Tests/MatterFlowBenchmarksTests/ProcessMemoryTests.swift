import Testing

@testable import MatterFlowBenchmarks

/// The live-heap figure the benchmarks report counts what the allocator has handed out and not had back.
@Suite struct ProcessMemoryTests {
    @Test func theLiveHeapGrowsByAnAllocationAndShrinksWhenItIsFreed() {
        // Large enough that other tests allocating or freeing meanwhile cannot hide it.
        let size = 256 << 20
        let before = ProcessMemory.heapBytesInUse
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        let held = ProcessMemory.heapBytesInUse
        block.deallocate()
        let after = ProcessMemory.heapBytesInUse
        #expect(held - before >= Double(size) * 0.8, "held \(held), before \(before)")
        #expect(held - after >= Double(size) * 0.8, "held \(held), after \(after)")
    }
}
