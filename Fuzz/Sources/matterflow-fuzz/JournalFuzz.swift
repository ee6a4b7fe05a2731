import MatterFlowJSON
import MatterFlowJournal

/// Journal bytes as they are, and each line of the input as a record's JSON payload framed with a valid checksum,
/// so that the reader's record handling, and the decoding of each record's members into typed entries, is reached
/// past the checksum.
enum JournalFuzz {
    static func run(_ bytes: [UInt8]) {
        _ = try? JournalReader.decode(bytes, path: "fuzz.journal").entries()
        var framed = Array(JournalFrame.header.utf8)
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            guard let object = (try? JSONDocument.parse(text, file: "record"))?.value.objectValue else { continue }
            framed += JournalFrame.encode(object)
        }
        _ = try? JournalReader.decode(framed, path: "fuzz.journal").entries()
    }
}
