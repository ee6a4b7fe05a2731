import MatterFlowJSON
import MatterFlowJournal

/// Journal bytes as they are, and each line of the input as a record's JSON payload framed with a valid checksum,
/// so that the reader's record handling, the decoding of each record's members into typed entries, and the reading
/// of the questions a run waits for (`matterflow answer RUN`) are reached past the checksum.
enum JournalFuzz {
    static func run(_ bytes: [UInt8]) {
        if let contents = try? JournalReader.decode(bytes, path: "fuzz.journal") {
            _ = try? contents.entries()
            _ = WaitingQuestion.waiting(in: contents.records)
        }
        var framed = Array(JournalFrame.header.utf8)
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            guard let object = (try? JSONDocument.parse(text, file: "record"))?.value.objectValue else { continue }
            framed += JournalFrame.encode(object)
        }
        if let contents = try? JournalReader.decode(framed, path: "fuzz.journal") {
            _ = try? contents.entries()
            _ = WaitingQuestion.waiting(in: contents.records)
        }
    }
}
