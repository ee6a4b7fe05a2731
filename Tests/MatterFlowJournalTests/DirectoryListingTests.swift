#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing

@testable import MatterFlowJournal

/// Listing a directory (journal files, a worker's secrets inbox) reads each entry's name where the kernel put it.
@Suite struct DirectoryListingTests {
    /// A directory entry as short as its name, ending where mapped memory ends (the page after it inaccessible), as
    /// the last entry `readdir` returns can: reading more than the record faults, which a worker sweeping its
    /// secrets directory did, once in about forty listings under load.
    @Test("an entry ending at the end of mapped memory is read without reading past it")
    func entryAtTheEndOfMappedMemory() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let mapping = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapping != MAP_FAILED
        else { throw CocoaError(.featureUnsupported) }
        defer { munmap(mapping, 2 * page) }
        #expect(mprotect(mapping + page, page, PROT_NONE) == 0)
        let nameOffset = try #require(MemoryLayout<dirent>.offset(of: \dirent.d_name))
        // A name whose record (8-byte aligned, as the kernel's are) ends with its terminating zero on the page's last byte.
        var name = "run-1.secrets"
        while (nameOffset + name.utf8.count + 1) % 8 != 0 { name = "x" + name }
        let record = mapping + page - (nameOffset + name.utf8.count + 1)
        memset(record, 0, nameOffset)
        name.utf8CString.withUnsafeBytes { bytes in
            (record + nameOffset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
        #expect(JournalFile.entryName(UnsafePointer(record.assumingMemoryBound(to: dirent.self))) == name)
    }

    @Test("names are listed sorted, without . and .., whatever their length or bytes")
    func names() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(getpid())-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let long = String(repeating: "x", count: 255)
        for name in ["b", "a", long, "Küche.json"] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data()))
        }
        #expect(try JournalFile.list(directory) == ["Küche.json", "a", "b", long].sorted())
    }
}
