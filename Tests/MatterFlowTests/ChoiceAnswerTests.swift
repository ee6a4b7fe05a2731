import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// A choice answered as typed text: by its label or value first, trimmed; by its position only when no choice is a
/// number itself, so that a unit number that is no room is refused rather than taken for the nth room.
@Suite("choice answers typed as text")
struct ChoiceAnswerTests {
    static func question(_ labels: [String]) -> Question {
        Question(
            name: "room", state: "room", prompt: "Which room?",
            schema: .choice(labels.map { QuestionSchema.Choice(label: $0, value: .string($0)) }), secret: false, timeoutSeconds: 60)
    }

    @Test("rooms named by unit number: a unit is taken by its name, trimmed; a number that is no unit is refused, not taken as a position")
    func numberedRooms() throws {
        let units = (1...30).flatMap { floor in (1...10).map { "\(floor)\(String(format: "%02d", $0))" } }
        let question = Self.question(units)
        #expect(!question.schema.takesPositions)
        #expect(try question.parse("105") == "105")
        #expect(try question.parse("105 ") == "105")
        #expect(try question.parse("105\r") == "105")
        do {
            _ = try question.parse("115")
            Issue.record("115, no unit, was taken")
        } catch {
            #expect(error.code == .invalidAnswer)
            #expect(error.message.contains("\"115\" is none of the choices, and as they are numbers themselves"), "\(error.message)")
        }
        #expect(throws: AnswerError.self) { _ = try question.parse("2") }
    }

    @Test("rooms with names: a number is the room at that position, a name is that room")
    func namedRooms() throws {
        let question = Self.question(["Kitchen", "Hall", "Office"])
        #expect(question.schema.takesPositions)
        #expect(try question.parse("2") == "Hall")
        #expect(try question.parse(" Office ") == "Office")
        #expect(throws: AnswerError.self) { _ = try question.parse("4") }
    }
}
