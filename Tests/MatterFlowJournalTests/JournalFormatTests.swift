import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Record framing: checksums, torn tails at every byte, damage in the middle.
@Suite("journal format")
struct JournalFormatTests {
    @Test("CRC-32 and SHA-256 match their standard check values")
    func checkValues() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(ContentHash.sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(ContentHash.sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = String(repeating: "a", count: 1000)
        #expect(ContentHash.sha256(long) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test("a record is its length, checksum and JSON payload on one line")
    func frame() throws {
        let bytes = JournalFrame.encode(["seq": 1, "type": "runStarted"])
        let text = String(decoding: bytes, as: UTF8.self)
        let payload = #"{"seq":1,"type":"runStarted"}"#
        let crc = String(CRC32.checksum(Array(payload.utf8)), radix: 16)
        #expect(text == String(format: "%08x ", payload.utf8.count) + String(repeating: "0", count: 8 - crc.count) + crc + " " + payload + "\n")
        let contents = try JournalReader.decode(Array(JournalFrame.header.utf8) + bytes, path: "x")
        #expect(contents.records.map(\.type) == ["runStarted"])
        #expect(contents.tornTail == nil && contents.problems.isEmpty)
    }

    /// A real journal: a commission-device run on the simulated home.
    static func sampleJournal() async throws -> (bytes: [UInt8], records: [JournalRecord]) {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let journal = try RunJournal(directory: scratch.path)
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: Homes.basic(), clock: clock)
        let result = try await journaledCommission(journal: journal, hub: hub, clock: clock)
        #expect(result.outcome == .succeeded)
        let path = journal.path(of: result.runID)
        let bytes = try JournalFile.readAll(path)
        return (bytes, try JournalReader.decode(bytes, path: path).records)
    }

    @Test("a journal cut at every byte of its last record reads without error and without inventing a record")
    func truncatedLastRecord() async throws {
        let (bytes, records) = try await Self.sampleJournal()
        let last = try #require(records.last)
        #expect(last.type == JournalEntry.Kind.runFinished.rawValue)
        for length in last.offset..<bytes.count {
            let contents = try JournalReader.decode(Array(bytes.prefix(length)), path: "cut")
            #expect(contents.records.count == records.count - 1, "cut at \(length)")
            #expect(contents.records.map(\.payload) == records.dropLast().map(\.payload), "cut at \(length)")
            #expect(contents.problems.isEmpty, "cut at \(length): \(contents.problems)")
            #expect(contents.validLength == last.offset)
            if length == last.offset {
                #expect(contents.tornTail == nil)
            } else {
                #expect(contents.tornTail == JournalContents.TornTail(offset: last.offset, length: length - last.offset, reason: contents.tornTail?.reason ?? ""))
            }
        }
        #expect(try JournalReader.decode(bytes, path: "whole").records.count == records.count)
    }

    @Test("a journal cut anywhere keeps exactly the records before the cut")
    func truncatedAnywhere() async throws {
        let (bytes, records) = try await Self.sampleJournal()
        for length in stride(from: 0, through: bytes.count, by: 13) {
            let contents = try JournalReader.decode(Array(bytes.prefix(length)), path: "cut")
            let complete = records.filter { record in
                (records.first { $0.sequence == record.sequence + 1 }?.offset ?? bytes.count) <= length
            }
            #expect(contents.records.map(\.sequence) == complete.map(\.sequence), "cut at \(length)")
            #expect(contents.problems.isEmpty, "cut at \(length)")
        }
    }

    @Test("a changed byte in the last record is a torn tail, never a different record")
    func flippedByte() async throws {
        let (bytes, records) = try await Self.sampleJournal()
        let last = try #require(records.last)
        for index in last.offset..<bytes.count {
            var damaged = bytes
            damaged[index] ^= 0x01
            let contents = try JournalReader.decode(damaged, path: "flipped")
            #expect(contents.records.map(\.payload) == records.dropLast().map(\.payload), "byte \(index)")
            #expect(contents.tornTail?.offset == last.offset, "byte \(index)")
        }
    }

    @Test("damage followed by valid records is reported as damage, and the later records are kept")
    func damageInTheMiddle() async throws {
        let (bytes, records) = try await Self.sampleJournal()
        let victim = records[3]
        var damaged = bytes
        damaged[victim.offset + 20] ^= 0x01
        let contents = try JournalReader.decode(damaged, path: "damaged")
        #expect(contents.tornTail == nil)
        #expect(contents.problems.count == 2, "the bad record and the gap in sequence numbers: \(contents.problems)")
        #expect(contents.records.count == records.count - 1)
    }

    @Test("a last record whole as written (its checksum right) whose payload cannot be read is damage, kept, never a torn tail", arguments: [
        #"{"seq":2,"type":"stateEntered","name":"\ud800"}"#, #"{"seq":2,"type":"stateEntered","wallTime":1e400}"#, #"[2]"#,
        #"{"seq":2,"type":"stateEntered","name":"a","name":"b"}"#,
    ])
    func wholeButUnreadableLastRecord(payload: String) throws {
        var bytes = Array(JournalFrame.header.utf8) + JournalFrame.encode(["seq": 1, "type": "runStarted"])
        let offset = bytes.count
        let body = Array(payload.utf8)
        let crc = String(CRC32.checksum(body), radix: 16)
        bytes += Array((String(format: "%08x ", body.count) + String(repeating: "0", count: 8 - crc.count) + crc + " ").utf8) + body + [0x0A]
        let contents = try JournalReader.decode(bytes, path: "x")
        #expect(contents.tornTail == nil, "a record written whole is not cut off as torn")
        #expect(contents.validLength == bytes.count)
        #expect(contents.records.map(\.type) == ["runStarted"])
        #expect(contents.problems.count == 1 && contents.problems[0].hasPrefix("the record at byte \(offset) cannot be read ("), "\(contents.problems)")
        // After a stretch of garbage too: the whole record found past it is damage, and nothing is torn.
        let garbled = Array(bytes[..<offset]) + Array("garbage\n".utf8) + Array(bytes[offset...])
        let past = try JournalReader.decode(garbled, path: "x")
        #expect(past.tornTail == nil && past.validLength == garbled.count, "\(past.problems)")
        #expect(past.problems.count == 2, "the garbage and the record: \(past.problems)")
    }

    @Test("a sequence number past the largest a record may carry is damage, and the next number is still counted")
    func hugeSequenceNumbers() throws {
        let header = Array("MATTERFLOW-JOURNAL 1\n".utf8)
        for huge in [Int.max, Int.max - 1, JournalRecord.maximumSequence + 1, -1] {
            let bytes = header + JournalFrame.encode(["seq": .int(huge), "type": "stateEntered", "wallTime": 1])
                + JournalFrame.encode(["seq": 2, "type": "stateEntered", "wallTime": 1])
            let contents = try JournalReader.decode(bytes, path: "huge")
            #expect(contents.records.map(\.sequence) == [0, 2], "\(huge)")
            #expect(contents.problems.first?.contains("has sequence number 0, expected 1") == true, "\(contents.problems)")
            let last = try JournalReader.decode(header + JournalFrame.encode(["seq": .int(huge), "type": "stateEntered"]), path: "last")
            #expect((last.records.last?.sequence ?? 0) + 1 == 1, "a writer continuing the journal can count on")
        }
    }

    @Test("a file that is not a journal is refused with notAJournal; a torn header is an empty journal")
    func header() throws {
        let refused = #expect(throws: JournalError.self) { try JournalReader.decode(Array("{\"json\": true}\n".utf8), path: "x") }
        #expect(refused?.code == .notAJournal)
        let torn = try JournalReader.decode(Array("MATTERFLOW-JOUR".utf8), path: "x")
        #expect(torn.records.isEmpty)
        #expect(torn.tornTail?.offset == 0)
        let empty = try JournalReader.decode([], path: "x")
        #expect(empty.records.isEmpty && empty.tornTail == nil)
    }
}
